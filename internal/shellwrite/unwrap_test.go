package shellwrite

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScriptFromArgv(t *testing.T) {
	const s = "echo hi > f"
	cases := []struct {
		argv []string
		ok   bool
	}{
		{[]string{"/bin/bash", "-lc", s}, true},
		{[]string{"bash", "-lc", s}, true},
		{[]string{"sh", "-c", s}, true},
		{[]string{"/bin/zsh", "-lc", s}, true},
		{[]string{"/usr/bin/zsh", "-c", s}, true},
		{[]string{"/opt/homebrew/bin/bash", "-c", s}, true},
		{[]string{"/bin/sh", "-lc", ""}, true},

		{nil, false},
		{[]string{"bash", "-c"}, false},
		{[]string{"bash", "-c", s, "extra"}, false},
		{[]string{"bash", "-l", "-c", s}, false},
		{[]string{"bash", "-ic", s}, false},
		{[]string{"bash", "-x", s}, false},
		{[]string{"bash", "--", s}, false},
		{[]string{"fish", "-c", s}, false},
		{[]string{"python3", "-c", s}, false},
		{[]string{"/bin/mybash", "-c", s}, false},
		{[]string{"bash.exe", "-c", s}, false},
		{[]string{"BASH", "-c", s}, false},
		{[]string{"/bin/bash/", "-c", s}, false},
		{[]string{"bash", "-c", s + "\r"}, false},
		{[]string{"bash\r", "-c", s}, false},
		{[]string{"bash", "-c\r", s}, false},
		{[]string{"bash", "-c", s + "\x00"}, false},
	}
	for _, tc := range cases {
		got, ok := ScriptFromArgv(tc.argv)
		if assert.Equal(t, tc.ok, ok, "ScriptFromArgv(%q) = %q, %v; want ok=%v", tc.argv, got, ok, tc.ok) {
			if ok {
				assert.Equal(t, tc.argv[2], got, "ScriptFromArgv(%q)", tc.argv)
			} else {
				assert.Empty(t, got, "ScriptFromArgv(%q)", tc.argv)
			}
		}
	}
}

// commandLineCase is a codex TypeScript command line and the script inside it ("" with ok false:
// rejected).
type commandLineCase struct {
	cmd    string
	script string
	ok     bool
}

func unwraps(cmd, script string) commandLineCase { return commandLineCase{cmd, script, true} }
func refuses(cmd string) commandLineCase         { return commandLineCase{cmd: cmd} }

var commandLineCases = []commandLineCase{
	unwraps(`/bin/zsh -lc 'cat <<'\''EOF'\'' > notes.md`+"\n# Notes\n$HOME `x`\nEOF'",
		"cat <<'EOF' > notes.md\n# Notes\n$HOME `x`\nEOF"),
	unwraps(`/bin/bash -lc 'cat <<'\''EOF'\'' > notes.md`+"\n# Notes\nit'\\''s\nEOF'",
		"cat <<'EOF' > notes.md\n# Notes\nit's\nEOF"),
	unwraps(`/bin/bash -lc "echo \"hi there\" > f"`, `echo "hi there" > f`),
	unwraps(`bash -c "printf '%s\n' \$HOME \`+"`x\\`"+` > f"`, "printf '%s\\n' $HOME `x` > f"),
	unwraps(`bash -c "a\\b \a \\\\"`, `a\b \a \\`),
	unwraps("bash -c \"echo hi \\\n> f\"", "echo hi > f"),
	unwraps("bash -c 'echo hi \\\n> f'", "echo hi \\\n> f"),
	unwraps(`sh -c echo\ hi\ \>\ f`, "echo hi > f"),
	unwraps("sh \\\n  -c 'echo hi > f'", "echo hi > f"),
	unwraps(`/bin/sh -c 'echo "a  b"'" > f"`, `echo "a  b" > f`),
	unwraps(`/bin/bash -lc ''`, ""),
	unwraps(`  /usr/bin/zsh   -lc   'echo hi > f'  `, "echo hi > f"),
	unwraps("/bin/zsh -lc 'echo hi > f'\n", "echo hi > f"),

	refuses(`bash -lc "$X"`),
	refuses(`bash -lc "${X}"`),
	refuses(`bash -lc $'echo hi > f'`),
	refuses(`bash -lc $"echo hi > f"`),
	refuses(`bash -lc "$(cat script)"`),
	refuses("bash -lc `cat script`"),
	refuses(`bash -lc 'echo hi' 'extra'`),
	refuses(`bash 'echo hi > f'`),
	refuses(`bash -l -c 'echo hi > f'`),
	refuses(`env bash -lc 'echo hi > f'`),
	refuses(`X=1 bash -lc 'echo hi > f'`),
	refuses(`bash -lc 'echo hi' > log`),
	refuses(`bash -lc 'echo hi > f'; rm f`),
	refuses(`bash -lc 'echo hi > f' | cat`),
	refuses(`bash -lc 'echo hi > f' &`),
	refuses(`bash -lc 'echo hi > f' # comment`),
	refuses("bash -lc 'echo hi > f\r'"),
	refuses("bash -lc 'echo hi > f'\r"),
	refuses("bash -lc 'echo hi > f\x00'"),
	refuses(`~/bin/bash -lc 'echo hi > f'`),
	refuses(`bash* -lc 'echo hi > f'`),
	refuses(`{bash,sh} -lc 'echo hi > f'`),
	refuses(`bash -lc 'unterminated`),
	refuses(`bash -lc "unterminated`),
	refuses(`bash -lc x\`),
	refuses(`fish -c 'echo hi > f'`),
	refuses(`(bash -lc 'echo hi > f')`),
	refuses(``),
}

func TestScriptFromCommandLine(t *testing.T) {
	for _, tc := range commandLineCases {
		got, ok := ScriptFromCommandLine(tc.cmd)
		if assert.Equal(t, tc.ok, ok, "ScriptFromCommandLine(%q) = %q, %v; want %q, %v", tc.cmd, got, ok, tc.script, tc.ok) {
			assert.Equal(t, tc.script, got, "ScriptFromCommandLine(%q) = %q, %v; want %q, %v", tc.cmd, got, ok, tc.script, tc.ok)
		}
	}
}

// TestCommandLineAgainstShells runs codex TypeScript command lines through bash, as the agent
// does, and requires that the file written is the one Parse predicts for the unwrapped script.
func TestCommandLineAgainstShells(t *testing.T) {
	cases := []struct{ cmd, shell string }{
		{`/bin/bash -lc 'cat <<'\''EOF'\'' > notes.md` + "\n# Notes\n$HOME `x` it'\\''s\n\tEOF\nEOF'", "bash"},
		{"bash -c " + doubleQuoted("cat <<'EOF' > notes.md\n$HOME `x` \\ \"q\"\nEOF"), "bash"},
		{`/bin/bash -lc "echo \"hi there\" > f"`, "bash"},
		{`sh -c 'printf '\''%s\n'\'' a b > f'`, "dash"},
		{"/bin/sh -c \"printf '%b' 'x\\\\ty' \\\n> f\"", "dash"},
		{`sh -c echo\ hi\ \>\ f`, "dash"},
		{`/bin/zsh -lc 'echo hi > f'`, "zsh"},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			shellPath(t, tc.shell) // skips rows whose inner shell is missing
			script, ok := ScriptFromCommandLine(tc.cmd)
			require.True(t, ok, "ScriptFromCommandLine rejected %q", tc.cmd)
			prog := func(cwd string) (string, Write, error) {
				w, err := Parse(script, cwd)
				return tc.cmd, w, err
			}
			checkShellWrites(t, "bash", prog)
		})
	}
}

// singleQuoted quotes s as codex TypeScript does: in single quotes, where each quote in s closes
// them, is written \' and reopens them.
func singleQuoted(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// doubleQuoted quotes s in "…", escaping \ $ ` and ".
func doubleQuoted(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `$`, `\$`, "`", "\\`", `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// TestCommandLineRoundTrip quotes every table script both ways and unwraps it again.
func TestCommandLineRoundTrip(t *testing.T) {
	for _, tc := range parseCases {
		script := tc.scriptIn(testCWD)
		checkRoundTrip(t, script)
	}
}

func checkRoundTrip(tb testing.TB, script string) {
	tb.Helper()
	want := checkText(script) == nil
	for _, cmd := range []string{"/bin/zsh -lc " + singleQuoted(script), "bash -c " + doubleQuoted(script)} {
		got, ok := ScriptFromCommandLine(cmd)
		if assert.Equal(tb, want, ok, "ScriptFromCommandLine(%q) = %q, %v; want %q, %v", cmd, got, ok, script, want) && ok {
			assert.Equal(tb, script, got, "ScriptFromCommandLine(%q)", cmd)
		}
	}
}

// PowerShell and cmd are never unwrapped: a script for them is no POSIX shell script, whatever
// it looks like ("echo hi > f" writes UTF-16 in Windows PowerShell 5).
func TestWindowsShellsStandAside(t *testing.T) {
	const s = "echo hi > f"
	for _, shell := range []string{
		"powershell", "powershell.exe", "PowerShell.EXE", "pwsh", "pwsh.exe", "PWSH", "cmd", "cmd.exe", "CMD.EXE",
		`C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, `C:\Windows\System32\cmd.exe`,
		"/usr/local/bin/pwsh", `C:\Program Files\PowerShell\7\pwsh.exe`,
	} {
		assert.True(t, IsWindowsShell(shell), "IsWindowsShell(%q) = false", shell)
		for _, flag := range []string{"-c", "-lc", "-Command", "/c"} {
			got, ok := ScriptFromArgv([]string{shell, flag, s})
			assert.False(t, ok, "ScriptFromArgv(%q, %q) = %q", shell, flag, got)
		}
		got, ok := ScriptFromCommandLine(singleQuoted(shell) + " -c " + singleQuoted(s))
		assert.False(t, ok, "ScriptFromCommandLine with %q = %q", shell, got)
	}
	for _, other := range []string{"bash", "/bin/zsh", "commander", "pwsh2", "xcmd.exe", ""} {
		assert.False(t, IsWindowsShell(other), "IsWindowsShell(%q) = true", other)
	}
}
