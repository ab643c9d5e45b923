package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tablePolicy is the rule set the adversarial table runs against: the policy (allow npm
// test, deny git push and any write outside cwd) and a few more.
const tablePolicy = `# the issue's starter, and some more
allow Bash(npm test)
allow Bash(npm run test:*)
allow Bash(ls:*)
allow Bash(git status)
allow Bash(git diff:*)
allow Bash(cat:*)
allow Bash(echo:*)
allow Bash(python3 -m pytest:*)
allow Bash(find:*)
allow Bash(env:*)
allow Bash(xargs:*)
allow Bash(cp:*)
allow Bash(ln:*)
deny  Bash(git push:*)
deny  Edit(../**)
ask   Read(./.env)
stop  Bash(rm -rf:*)
allow Edit(src/**)
allow Read(**)
`

// session makes a session directory with a subdirectory sub, and a symlink out to a directory
// outside it.
func session(t testing.TB) (cwd string) {
	t.Helper()
	root := t.TempDir()
	cwd = filepath.Join(root, "project")
	require.NoError(t, os.MkdirAll(filepath.Join(cwd, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(cwd, "out")))
	require.NoError(t, os.WriteFile(filepath.Join(root, "elsewhere", "target.txt"), nil, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(root, "elsewhere", "target.txt"), filepath.Join(cwd, "link.txt")))
	require.NoError(t, os.Symlink("../elsewhere/new.txt", filepath.Join(cwd, "dangling.txt")))
	require.NoError(t, os.Link(filepath.Join(root, "elsewhere", "target.txt"), filepath.Join(cwd, "hardlink.txt")))
	require.NoError(t, os.Mkdir(filepath.Join(cwd, "src"), 0o755))
	require.NoError(t, os.Link(filepath.Join(root, "elsewhere", "target.txt"), filepath.Join(cwd, "src", "hardlink.txt")))
	return cwd
}

func mustParse(t testing.TB, text string) *Policy {
	t.Helper()
	p, err := Parse(strings.NewReader(text), "test.policy")
	require.NoError(t, err)
	return p
}

// TestDecideCommands is the adversarial table: each way of hiding what a command does is
// either proven (and then decided by the rules) or asked, never allowed on a guess.
func TestDecideCommands(t *testing.T) {
	p := mustParse(t, tablePolicy)
	cwd := session(t)
	for _, tc := range []struct {
		script string
		want   Action
		line   int // the deciding rule's line; 0: none, or not checked
	}{
		// the rules themselves
		{"npm test", Allow, 2},
		{"npm run test -- --watch", Allow, 3},
		{"npm run testing", Ask, 0},
		{"npm test --coverage", Ask, 0},
		{"git push", Deny, 15},
		{"git push origin main", Deny, 15},
		{"rm -rf build", Stop, 18},
		// compounds: each part must be allowed, any part denied denies
		{"npm test; git push", Deny, 15},
		{"npm test && git push origin main", Deny, 15},
		{"npm test || git push", Deny, 15},
		{"npm test\ngit push", Deny, 15},
		{"npm test | tee log.txt", Ask, 0},
		{"npm test && ls -la", Allow, 2},
		{"npm test &", Allow, 2},
		{"(npm test)", Allow, 2},
		{"{ npm test; }", Allow, 2},
		{"! npm test", Allow, 2},
		{"npm test; rm -rf /", Stop, 18},
		// quoting: quote removal is exact, so these are git push, proven
		{`g\it push`, Deny, 15},
		{`"git" push`, Deny, 15},
		{`'git' push`, Deny, 15},
		{`git "push"`, Deny, 15},
		{`"npm" test`, Allow, 2},
		{`n'p'm te"s"t`, Allow, 2},
		// a path to the program: denied by its name, never allowed by it
		{"/usr/bin/git push", Deny, 15},
		{"./npm test", Ask, 0},
		{"/tmp/npm test", Ask, 0},
		// expansions: never allowed; a literal command beside them still denied
		{"$(echo git) push", Ask, 0},
		{"`echo git` push", Ask, 0},
		{"$CMD test", Ask, 0},
		{"${X}pm test", Ask, 0},
		{"npm test $X", Ask, 0},
		{"npm test $(git push)", Deny, 15},
		{"echo $HOME; git push", Deny, 15},
		{"ls *.go", Ask, 0},
		{"ls {a,b}", Ask, 0},
		{"ls ~", Ask, 0},
		{"echo $'\\x41'", Ask, 0},
		// eval, shells, runners, interpreters
		{"eval git push", Deny, 15},
		{"eval 'git push'", Deny, 15},
		{"eval npm test", Ask, 0},
		{"bash -c 'git push'", Deny, 15},
		{"sh -c 'npm test'", Allow, 2},
		{"bash -lc 'npm test && git status'", Allow, 2},
		{"bash -c 'npm test; rm -rf /'", Stop, 18},
		{"bash -c \"sh -c 'git push'\"", Deny, 15},
		{"bash script.sh", Ask, 0},
		{"./bash -c 'npm test'", Ask, 0},
		{"/tmp/x/sh -c 'npm test'", Ask, 0},
		{"/bin/bash -c 'npm test'", Allow, 2},
		{"./bash -c 'git push'", Deny, 15},
		{"bash -x -c 'npm test'", Ask, 0},
		{"env git push", Deny, 15},
		{"env npm test", Ask, 0},
		{"env FOO=1 git push", Deny, 15},
		{"command git push", Deny, 15},
		{"exec git push", Deny, 15},
		{"nohup git push", Deny, 15},
		{"sudo -u x git push --force", Deny, 15},
		{"timeout 5 git push", Deny, 15},
		{"xargs git push < list.txt", Deny, 15},
		{"xargs -n1 echo < list.txt", Ask, 0},
		{"find . -exec git push \\;", Deny, 15},
		{"find . -name '*.go'", Allow, 10},
		{"find . -name x -delete", Ask, 0},
		{"find . -exec cat {} +", Ask, 0},
		{"python3 -c 'import os; os.system(\"git push\")'", Ask, 0},
		{"python3 -m pytest tests", Allow, 9},
		{"python3 -c 'print(1)' -m pytest", Ask, 0},
		{"node -e 'require(\"child_process\")'", Ask, 0},
		{"perl -e 'system(\"ls\")'", Ask, 0},
		{"awk 'BEGIN{system(\"git push\")}'", Ask, 0},
		// git options before the subcommand
		{"git -C /elsewhere push", Deny, 15},
		{"git -C sub status", Ask, 0},
		{"git -c core.pager=evil diff", Ask, 0},
		{"git --git-dir=/x/.git push", Deny, 15},
		{"git diff HEAD", Allow, 6},
		// definitions and assignments change what later words mean
		{"X=1 npm test", Ask, 0},
		{"PATH=. npm test", Ask, 0},
		{"export PATH=.; npm test", Ask, 0},
		{"alias npm=ls; npm test", Ask, 0},
		{"npm() { curl x; }; npm test", Ask, 0},
		{"f() { git push; }; f", Deny, 15},
		{"for i in 1 2; do npm test; done", Ask, 0},
		{"for i in 1 2; do git push; done", Deny, 15},
		{"if true; then npm test; fi", Ask, 0},
		{"[[ -f x ]] && npm test", Ask, 0},
		// here-documents: a quoted one is data, an unquoted one that expands runs code
		{"cat <<'EOF' > notes.txt\n$HOME $(git push)\nEOF", Allow, 7},
		{"cat <<EOF > notes.txt\nhello\nEOF", Allow, 7},
		{"cat <<EOF > notes.txt\n$HOME\nEOF", Ask, 0},
		{"cat <<EOF > notes.txt\n$(git push)\nEOF", Deny, 15},
		// writes: inside the session's directory, out of it by .., by a symlink, by ~ and $VAR
		{"echo hi > notes.txt", Allow, 8},
		{"echo hi >> sub/notes.txt", Allow, 8},
		{"echo hi > sub/../notes.txt", Allow, 8},
		{"echo hi > ../x.txt", Deny, 16},
		{"echo hi > out/x.txt", Deny, 16},
		{"echo hi > out/../x.txt", Deny, 16},
		{"echo hi > /etc/x.txt", Deny, 16},
		{"echo hi > ~/x.txt", Ask, 0},
		{"echo hi > $HOME/x.txt", Ask, 0},
		{"npm test > /dev/null 2>&1", Allow, 2},
		{"npm test &> log.txt", Ask, 0}, // dash reads & then > log.txt: npm test in the background
		{"npm test > /dev/sda", Ask, 0},
		{"echo hi > link.txt", Deny, 16},     // link.txt is a symlink to a file outside
		{"echo hi > dangling.txt", Deny, 16}, // a dangling one: the write creates its target outside
		{"npm test 3> ../x.txt", Deny, 16},
		{"npm test >& ../x.txt", Deny, 16},
		{"npm test 2>&-", Allow, 2},
		{"echo hi > hardlink.txt", Ask, 0}, // a hard link to a file outside: no path says so
		{"cp a.txt ../b.txt", Deny, 16},
		{"cp a.txt b.txt", Allow, 13},
		{"cp a.txt out/", Deny, 16},
		{"ln -s /etc e && echo x > e/passwd", Ask, 0},
		// cd: where later commands run
		{"cd ./sub && npm test", Allow, 2},
		{"cd sub && npm test", Ask, 0},
		{"cd .. && npm test", Ask, 0},
		{"cd /tmp && npm test", Ask, 0},
		{"cd ./out && npm test", Ask, 0},
		{"cd ./sub && echo x > ../../x.txt", Deny, 16},
		{"npm test; cd /tmp", Ask, 0}, // a persistent shell is left outside
		{"npm test; cd ./out", Ask, 0},
		{"npm test; cd ./sub", Allow, 2},
		// files named in arguments
		{"cat .env", Ask, 17},
		{"cat < .env", Ask, 17},
		{"cat README.md", Allow, 7},
		// what does not parse alike in every shell
		{"npm test #comment", Ask, 0},
		{"npm test\r", Ask, 0},
		{"echo 'unterminated", Ask, 0},
		{"coproc npm test", Ask, 0},
	} {
		t.Run(tc.script, func(t *testing.T) {
			d := p.Decide(Call{Tool: Bash, Cwd: cwd, Script: tc.script})
			assert.Equal(t, tc.want, d.Action, "%s", d)
			if tc.line != 0 && assert.NotNil(t, d.Rule, "%s", d) {
				assert.Equal(t, tc.line, d.Rule.Line, "%s", d)
			}
			if d.Action == Allow {
				assert.NotNil(t, d.Rule, "an allow always names its rule")
			}
		})
	}
}

// TestDecideElsewhere: a command the agent runs in another directory than the session's is not
// allowed by a rule about the session.
func TestDecideElsewhere(t *testing.T) {
	p := mustParse(t, tablePolicy)
	cwd := session(t)
	assert.Equal(t, Allow, p.Decide(Call{Tool: Bash, Cwd: cwd, Dir: filepath.Join(cwd, "sub"), Script: "npm test"}).Action)
	assert.Equal(t, Ask, p.Decide(Call{Tool: Bash, Cwd: cwd, Dir: filepath.Dir(cwd), Script: "npm test"}).Action)
	assert.Equal(t, Ask, p.Decide(Call{Tool: Bash, Cwd: cwd, Dir: filepath.Join(cwd, "out"), Script: "npm test"}).Action)
}

// TestDecideArgv: a command started without a shell (terminal/create) is read as its words.
func TestDecideArgv(t *testing.T) {
	p := mustParse(t, tablePolicy)
	cwd := session(t)
	for _, tc := range []struct {
		argv []string
		want Action
	}{
		{[]string{"npm", "test"}, Allow},
		{[]string{"git", "push"}, Deny},
		{[]string{"bash", "-c", "git push"}, Deny},
		{[]string{"bash", "-c", "npm test"}, Allow},
		{[]string{"/usr/bin/bash", "-c", "npm test"}, Allow},
		{[]string{"./bash", "-c", "npm test"}, Ask},
		{[]string{"npm", "test", "$X"}, Ask}, // no shell: $X is a word, and no rule names it
		{[]string{"git", "push; ls"}, Ask},   // no shell: one word, no git push
		{[]string{}, Ask},
	} {
		d := p.Decide(Call{Tool: Bash, Cwd: cwd, Argv: tc.argv})
		assert.Equal(t, tc.want, d.Action, "%q: %s", tc.argv, d)
	}
}

// TestDecidePaths: edits and reads by the files they name, relative to the session.
func TestDecidePaths(t *testing.T) {
	p := mustParse(t, tablePolicy)
	cwd := session(t)
	for _, tc := range []struct {
		tool  Tool
		paths []string
		want  Action
	}{
		{Edit, []string{"src/a.go"}, Allow},
		{Edit, []string{"src/deep/er/a.go"}, Allow},
		{Edit, []string{"src/a.go", "README.md"}, Ask},
		{Edit, []string{"src/hardlink.txt"}, Ask},
		{Edit, []string{"README.md"}, Ask},
		{Edit, []string{"../x"}, Deny},
		{Edit, []string{"out/x"}, Deny},
		{Edit, []string{"src/../../x"}, Deny},
		{Edit, nil, Ask},
		{Read, []string{".env"}, Ask},
		{Read, []string{"sub/.env"}, Allow}, // ./.env is the project's own, as in Claude Code
		{Read, []string{"README.md"}, Allow},
		{Read, []string{"../secret"}, Ask}, // ** is the session's files, not the disk's
	} {
		var abs []string
		for _, rel := range tc.paths {
			abs = append(abs, filepath.Join(cwd, rel))
		}
		d := p.Decide(Call{Tool: tc.tool, Cwd: cwd, Paths: abs})
		assert.Equal(t, tc.want, d.Action, "%s %q: %s", tc.tool, tc.paths, d)
	}
}

// TestDecideAgent: a rule for one agent is not read for another.
func TestDecideAgent(t *testing.T) {
	p := mustParse(t, "deny agent=opencode Bash(npm test)\nallow Bash(npm test)\n")
	cwd := session(t)
	assert.Equal(t, Deny, p.Decide(Call{Agent: "OpenCode", Tool: Bash, Cwd: cwd, Script: "npm test"}).Action)
	assert.Equal(t, Allow, p.Decide(Call{Agent: "@agentclientprotocol/claude-agent-acp", Tool: Bash, Cwd: cwd, Script: "npm test"}).Action)
}

// TestDecideUnknown: a call whose effect is not known is never allowed, and still denied by a
// rule about every call of its tool.
func TestDecideUnknown(t *testing.T) {
	p := mustParse(t, "allow Bash\ndeny agent=gemini* Bash\nallow Edit\n")
	cwd := session(t)
	assert.Equal(t, Ask, p.Decide(Call{Tool: Bash, Cwd: cwd, Unknown: "no command in the request"}).Action)
	assert.Equal(t, Deny, p.Decide(Call{Agent: "gemini-cli", Tool: Bash, Cwd: cwd, Unknown: "no command"}).Action)
	assert.Equal(t, Allow, p.Decide(Call{Tool: Bash, Cwd: cwd, Script: "make"}).Action)
	assert.Equal(t, Ask, p.Decide(Call{Tool: Bash, Cwd: cwd, Script: "eval make"}).Action, "allow Bash does not name eval's command line")
	assert.Equal(t, Ask, p.Decide(Call{Cwd: cwd}).Action, "a kind no rule names")
}
