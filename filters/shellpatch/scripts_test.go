package shellpatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// diffs is the content a call shows: one diff item per file, path then old and new text (old
// "<null>" for a new file).
func diffs(dir string, files ...string) string {
	var items []string
	for i := 0; i < len(files); i += 3 {
		old := "null"
		if files[i+1] != "<null>" {
			old = jsonString(files[i+1])
		}
		items = append(items, fmt.Sprintf(`{"type":"diff","path":%q,"oldText":%s,"newText":%s}`,
			filepath.Join(dir, files[i]), old, jsonString(files[i+2])))
	}
	return "[" + strings.Join(items, ",") + "]"
}

// A whole script: one diff per file in the order written; kind edit when the script only writes,
// execute (the command visible, the diffs added) when it runs more.
func TestScriptsShowEveryFileTheyWrite(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		before       []string // path, content, …
		kind         string
		want         []string // path, old ("<null>": new file), new, …
	}{
		{"a write, then a command", "cat <<'EOF' > repro.py\nprint(1)\nEOF\npython3 repro.py", nil,
			`"execute"`, []string{"repro.py", "<null>", "print(1)\n"}},
		{"a write && a command", "echo x > f && pytest f", nil, `"execute"`, []string{"f", "<null>", "x\n"}},
		{"several files, one written twice", "# notes first\necho a > n.md; echo b > m.md\necho c >> n.md", nil,
			`"edit"`, []string{"n.md", "<null>", "a\nc\n", "m.md", "<null>", "b\n"}},
		{"an append", "echo more >> log.txt", []string{"log.txt", "first\n"},
			`"edit"`, []string{"log.txt", "first\n", "first\nmore\n"}},
		{"sed -i", "sed -i 's/old/new/' conf.txt", []string{"conf.txt", "old value\n"},
			`"edit"`, []string{"conf.txt", "old value\n", "new value\n"}},
		{"mkdir -p, then a file inside", "mkdir -p src/pkg && cat > src/pkg/m.go <<'EOF'\npackage m\nEOF", nil,
			`"edit"`, []string{"src/pkg/m.go", "<null>", "package m\n"}},
		{"touch", "touch empty.txt", nil, `"edit"`, []string{"empty.txt", "<null>", ""}},
		{"tee -a", "tee -a log.txt > /dev/null <<'EOF'\nx\nEOF", []string{"log.txt", "a\n"},
			`"edit"`, []string{"log.txt", "a\n", "a\nx\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := shellPatchSession(t, &Filter{})
			for i := 0; i < len(tc.before); i += 2 {
				require.NoError(t, os.WriteFile(filepath.Join(dir, tc.before[i]), []byte(tc.before[i+1]), 0o644))
			}
			got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", tc.script, dir))
			assert.JSONEq(t, diffs(dir, tc.want...), field(t, got[0].Raw, "params", "update", "content"))
			assert.Equal(t, tc.kind, field(t, got[0].Raw, "params", "update", "kind"))
			assert.JSONEq(t, jsonString(tc.script), field(t, got[0].Raw, "params", "update", "title"), "the command stays visible")
		})
	}
}

// The permission request shows the same diffs, with the agent's own items after them.
func TestScriptPermissionShowsEveryFile(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	script := "echo a > a.txt\necho b > b.txt\nls"
	argv, _ := json.Marshal([]string{"/bin/bash", "-lc", script})
	perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"c1","kind":"execute","status":"pending","title":"run","content":[{"type":"content","content":{"type":"text","text":"why"}}],"rawInput":{"command":%s,"cwd":%q}},"options":[]}}`, argv, dir)
	got := chaintest.Run(t, c, acp.AgentToClient, perm)
	want := diffs(dir, "a.txt", "<null>", "a\n", "b.txt", "<null>", "b\n")
	assert.JSONEq(t, want[:len(want)-1]+`,{"type":"content","content":{"type":"text","text":"why"}}]`,
		field(t, got[0].Raw, "params", "toolCall", "content"))
	assert.Equal(t, `"execute"`, field(t, got[0].Raw, "params", "toolCall", "kind"))
}

// Every file shown is verified when the call ends; a later command that changed a shown file
// takes the edit back, and the call stays a command.
func TestScriptVerificationCoversEveryFile(t *testing.T) {
	done := patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`)
	t.Run("every file as shown", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "echo a > a.txt; echo b > b.txt", dir))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644))
		got := chaintest.Run(t, c, acp.AgentToClient, done)
		assert.NotContains(t, got[0].Raw, "did not write what was shown")
	})
	t.Run("the second file otherwise", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "echo a > a.txt; echo b > b.txt; python3 edit.py", dir))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("edited\n"), 0o644))
		got := chaintest.Run(t, c, acp.AgentToClient, done)
		content := field(t, got[0].Raw, "params", "update", "content")
		assert.Contains(t, content, "holds other text than was shown")
		assert.Contains(t, content, `"newText":"edited\n"`)
		assert.Equal(t, `"execute"`, field(t, got[0].Raw, "params", "update", "kind"))
	})
}

// Claude's shell follows a script's cds when its shown writes were verified; a script whose
// writes were not (a cd that failed behind a ';' still completes) leaves the directory unknown.
func TestClaudeScriptCdFollowedWhenVerified(t *testing.T) {
	for _, written := range []bool{true, false} {
		t.Run(fmt.Sprint("written ", written), func(t *testing.T) {
			c, dir := shellPatchSession(t, &Filter{})
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "cd sub; echo a > x")...)
			if written {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "x"), []byte("a\n"), 0o644))
			}
			chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
			got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
			if written {
				assert.Equal(t, filepath.Join(dir, "sub", "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
			} else {
				assert.True(t, got[1].Original, got[1].Raw)
			}
		})
	}
}

// A script other than a single write is read through the Disk as one "script-edits" answer: a
// replay from the recording shows what the live filter showed, whatever the replaying machine's
// files hold.
func TestScriptReadsThroughTheDisk(t *testing.T) {
	script := "echo a > f; echo b >> f; ls"
	live := &tapeDisk{}
	c, dir := shellPatchSession(t, &Filter{})
	c.Disk = live
	want := chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", script, dir))
	assert.Equal(t, []string{"script-edits"}, live.asked)
	assert.JSONEq(t, diffs(dir, "f", "<null>", "a\nb\n"), field(t, want[0].Raw, "params", "update", "content"))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("other\n"), 0o644))
	c = sessionIn(t, &Filter{Unverified: true}, dir)
	c.Disk = &tapeDisk{tape: live.tape, replay: true}
	assert.Equal(t, want, chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", script, dir)))
}
