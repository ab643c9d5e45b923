package shellwrite

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commandCases are scripts whose commands Commands lists, with the argvs it lists (one line per
// command, words joined by '|'), run in order; the shells start the same programs with the same
// words (TestCommandsAsTheShellsRunThem).
var commandCases = []struct {
	script string
	argvs  string
}{
	{"git status", "git|status"},
	{`g\it "push" 'origin' ma"i"n`, "git|push|origin|main"},
	{"git a; git b && git fail || git d\ngit e", "git|a\ngit|b\ngit|fail\ngit|d\ngit|e"},
	{"( git a ) && { git b; }", "git|a\ngit|b"},
	{"! git a", "git|a"},
	{`git "a b" 'c  d' e\ f`, "git|a b|c  d|e f"},
	{`git "a\"b" "c\\d" "e\f"`, `git|a"b|c\d|e\f`},
	{"git a > out.txt 2>&1", "git|a"},
	{"cat <<'EOF' > f.txt\n$HOME `x`\nEOF", "cat"},
	{"cd ./sub && git a", "cd|./sub\ngit|a"},
}

func TestCommands(t *testing.T) {
	for _, tc := range commandCases {
		cmds, err := Commands(tc.script, "/p")
		require.NoError(t, err, tc.script)
		var lines []string
		for _, c := range cmds {
			lines = append(lines, strings.Join(c.Argv, "|"))
		}
		assert.Equal(t, tc.argvs, strings.Join(lines, "\n"), tc.script)
	}
}

// TestCommandsRedirectsAndDirs: what a command's redirects open, and where a cd may leave it.
func TestCommandsRedirectsAndDirs(t *testing.T) {
	cmds, err := Commands("git a > out.txt 2>&1 < in.txt; cd ./sub; git b >> ../log 2> /dev/null", "/p")
	require.NoError(t, err)
	require.Len(t, cmds, 3)
	assert.Equal(t, []Redirect{{Op: ">", Target: "out.txt"}, {Op: ">&", Fd: "2", Target: "1"}, {Op: "<", Target: "in.txt"}}, cmds[0].Redirs)
	assert.True(t, cmds[0].Redirs[0].Writes())
	assert.False(t, cmds[0].Redirs[1].Writes(), "2>&1 names a descriptor")
	assert.True(t, cmds[0].Redirs[2].Reads())
	assert.Equal(t, []string{"/p"}, cmds[0].Dirs)
	assert.Equal(t, []string{"/p", "/p/sub"}, cmds[2].Dirs, "cd may fail: both are possible")
}

// TestCommandsRefuses: each form whose commands are not known from the text.
func TestCommandsRefuses(t *testing.T) {
	for _, tc := range []struct{ script, why string }{
		{"$X a", "command name"},
		{"git $X", "argument 1"},
		{"git $(id)", "argument 1"},
		{"git `id`", "argument 1"},
		{"git *.go", "argument 1"},
		{"git {a,b}", "argument 1"},
		{"git ~", "argument 1"},
		{"git $'a'", "argument 1"},
		{"X=1 git a", "variable assignment"},
		{"export X=1", "declaration"},
		{"f() { git a; }", "function definition"},
		{"for i in a; do git a; done", "for loop"},
		{"if git a; then git b; fi", "if"},
		{"[[ -f x ]]", "[[ … ]]"},
		{"coproc git a", "coprocess"},
		{"git a > $F", "redirect >"},
		{"{ git a; } > f", "redirect on a compound command"},
		{"cat <<EOF\n$HOME\nEOF", "unquoted here-document"},
		{"cd sub && git a", "$CDPATH"},
		{"cd .. && git a", "climbs above"},
		{"cd && git a", "exactly one directory"},
		{"git a &> f", "parse as posix"},
		{"git a # c", "comment after a command"},
		{"git a\r", "carriage return"},
	} {
		_, err := Commands(tc.script, "/p")
		if assert.Error(t, err, tc.script) {
			assert.Contains(t, err.Error(), tc.why, tc.script)
		}
	}
}

// TestCommandsAsTheShellsRunThem runs each case in bash, dash and zsh with every program a stub
// that logs its words: the shells start exactly the argvs Commands lists.
func TestCommandsAsTheShellsRunThem(t *testing.T) {
	stubs := t.TempDir()
	for _, prog := range []string{"git", "cat"} {
		stub := "#!/bin/sh\n{ printf '%s' \"$(basename \"$0\")\"; for a in \"$@\"; do printf '|%s' \"$a\"; done; echo; } >> \"$LOG\"\n[ \"$1\" != fail ]\n"
		require.NoError(t, os.WriteFile(filepath.Join(stubs, prog), []byte(stub), 0o755))
	}
	for _, shell := range []string{"bash", "dash", "zsh"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			if os.Getenv("REQUIRE_SHELLS") != "" {
				t.Fatalf("%s: %v", shell, err)
			}
			t.Logf("%s not installed: skipped", shell)
			continue
		}
		for _, tc := range commandCases {
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			log := filepath.Join(dir, "log.txt")
			cmd := exec.Command(path, "-c", tc.script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + stubs + ":/usr/bin:/bin", "LOG=" + log, "HOME=" + dir}
			_ = cmd.Run() // a stub's status is its own business
			got, _ := os.ReadFile(log)
			var want []string
			for _, l := range strings.Split(tc.argvs, "\n") {
				if !strings.HasPrefix(l, "cd|") { // a builtin: no stub logs it
					want = append(want, l)
				}
			}
			assert.Equal(t, strings.Join(want, "\n")+"\n", string(got), "%s: %s", shell, tc.script)
		}
	}
}
