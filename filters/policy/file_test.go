package policy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseErrors: a malformed policy stops the proxy at start, with the line and why.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"allow Bash(npm test)\npermit Bash(ls)", `p:2: "permit" is not an action (allow, ask, deny or stop)`},
		{"allow Shell(ls)", `p:1: "Shell" is not a tool (Bash, Edit, Write, Read or WebFetch)`},
		{"deny Bash(git push:*", `p:1: Bash( is not closed by a ) at the end of the line`},
		{"allow", `p:1: allow what? (a rule such as Bash(npm test) or Edit(src/**))`},
		{"allow Bash(npm test && ls)", `p:1: Bash(npm test && ls): '&': a Bash rule is the words of one command`},
		{`allow Bash(echo "a b")`, `p:1: Bash(echo "a b"): '"': a Bash rule`},
		{"allow Bash()", `p:1: Bash(): no command (Bash alone is every command)`},
		{"allow Bash(*pm test)", `p:1: Bash(*pm test): the program "*pm" must be named without *`},
		{"deny Edit(src/[ab])", `p:1: src/[ab]: only * and ** are patterns`},
		{"deny Read(~root/x)", `p:1: ~root/x: only ~/ is known`},
		{"allow WebFetch(example.com)", `p:1: WebFetch(example.com): want WebFetch(domain:HOST)`},
		{"deny agent= Bash", `p:1: agent="" is not a name or glob`},
		{"deny agent=[ Bash", `p:1: agent="[" is not a name or glob`},
		{"# a comment\n\n  allow Bash(ls)  \nask Edit(.)", `p:4: .: names no file`},
	} {
		_, err := Parse(strings.NewReader(tc.text), "p")
		if assert.Error(t, err, tc.text) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
}

// TestParse: what each line of a good file becomes.
func TestParse(t *testing.T) {
	p, err := Parse(strings.NewReader(`# starter
allow Bash(npm run test:*)
  deny   Bash(git push:*)
stop agent=opencode Bash
ask Read(./.env)
allow Write(src/**)
allow WebFetch(domain:Example.com)
`), "starter.policy")
	require.NoError(t, err)
	require.Len(t, p.Rules, 6)
	r := p.Rules
	assert.Equal(t, Rule{Line: 2, Text: "allow Bash(npm run test:*)", Action: Allow, Tool: Bash,
		command: commandPattern{words: []string{"npm", "run", "test"}, prefix: true}}, r[0])
	assert.Equal(t, "deny   Bash(git push:*)", r[1].Text)
	assert.Equal(t, Rule{Line: 4, Text: "stop agent=opencode Bash", Action: Stop, Agent: "opencode", Tool: Bash, Any: true}, r[2])
	assert.Equal(t, Rule{Line: 5, Text: "ask Read(./.env)", Action: Ask, Tool: Read, path: pathPattern{segs: []string{".env"}}}, r[3])
	assert.Equal(t, Edit, r[4].Tool, "Write is Edit, as in Claude Code")
	assert.Equal(t, "example.com", r[5].domain)
}

func TestCommandPattern(t *testing.T) {
	for _, tc := range []struct {
		spec string
		argv string
		want bool
	}{
		{"npm test", "npm test", true},
		{"npm test", "npm test -v", false},
		{"npm test", "npm", false},
		{"npm run test:*", "npm run test", true},
		{"npm run test:*", "npm run test -- -u", true},
		{"npm run test:*", "npm run testing", false},
		{"ls *", "ls", true},
		{"ls *", "ls -la x", true},
		{"git * main", "git push origin main", true},
		{"git * main", "git main", true},
		{"git * main", "git push origin dev", false},
		{"go test ./*", "go test ./pkg/...", true},
		{"go test ./*", "go test -run x", false},
	} {
		p, err := parseCommandPattern(tc.spec)
		require.NoError(t, err)
		assert.Equal(t, tc.want, p.match(strings.Fields(tc.argv), false), "%s ~ %s", tc.spec, tc.argv)
	}
}

func TestPathPattern(t *testing.T) {
	const cwd = "/p"
	for _, tc := range []struct {
		spec, path string
		broad      bool
		want       bool
	}{
		{"src/**", "/p/src/a/b.go", false, true},
		{"src/**", "/p/lib/a.go", false, false},
		{"./.env", "/p/.env", false, true},
		{"./.env", "/p/sub/.env", false, false},
		{"/.env", "/p/.env", false, true},
		{".env", "/p/sub/.env", false, true},
		{".env", "/q/.env", false, false},
		{".env", "/q/.env", true, true},
		{"*.md", "/p/a/b/README.md", false, true},
		{"**", "/p/a", false, true},
		{"**", "/q/a", false, false},
		{"../**", "/q/a", false, true},
		{"../**", "/p/a", false, false},
		{"//etc/**", "/etc/passwd", false, true},
		{"//etc/**", "/p/etc/x", false, false},
	} {
		pp, err := parsePathPattern(tc.spec)
		require.NoError(t, err)
		assert.Equal(t, tc.want, pp.match(tc.path, cwd, tc.broad), "%s ~ %s (broad %v)", tc.spec, tc.path, tc.broad)
	}
}
