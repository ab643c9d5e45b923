package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// The messages below are the shapes claude-agent-acp 0.101 and codex-acp 2.6 sent a v2 client
// (docs/agents.md, "ACP v2"), with the session's ids and paths replaced.

const (
	v2Claude = "@agentclientprotocol/claude-agent-acp"
	v2Codex  = "@agentclientprotocol/codex-acp"
)

// v2Session is a chain with shell-to-patch on a v2 connection to agent, whose session "S"
// runs in a fresh directory.
func v2Session(t *testing.T, agent string) (*filters.Chain, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	c := filters.NewChain(capabilities.New(), &Filter{})
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"t","version":"0"},"capabilities":{}}}`)
	chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"info":{"name":%q,"version":"0.101.0"},"capabilities":{},"authMethods":[]}}`, agent))
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
	return c, dir
}

// v2Call is one call's messages, in the order the agent sends them: open, the command's
// update, the permission request (to which the test client says yes), the end.
type v2Call struct{ open, command, permission, end string }

func claudeV2Call(id, script string) v2Call {
	q := strconv.Quote(script)
	return v2Call{
		open:       patchUpdate(fmt.Sprintf(`{"toolCallId":%q,"name":"Bash","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":%q}],"sessionUpdate":"tool_call_update"}`, id, id)),
		command:    patchUpdate(fmt.Sprintf(`{"toolCallId":%q,"rawInput":{"command":%s,"description":"d"},"title":%s,"sessionUpdate":"tool_call_update"}`, id, q, q)),
		permission: fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"S","title":%s,"subject":{"type":"tool_call","toolCall":{"toolCallId":%q,"name":"Bash","rawInput":{"command":%s,"description":"d"},"title":%s,"kind":"execute","content":[{"type":"terminal","terminalId":%q}]}},"options":[{"optionId":"allow-once","name":"Yes","kind":"allow_once"},{"optionId":"reject","name":"No","kind":"reject_once"}]}}`, q, id, q, q, id),
		end:        patchUpdate(fmt.Sprintf(`{"toolCallId":%q,"status":"completed","sessionUpdate":"tool_call_update"}`, id)),
	}
}

// codexV2Call: codex opens the call in_progress with the command, before it asks; its request
// names the script as one shell word when the script holds a quote (requested).
func codexV2Call(id, script, requested, cwd string) v2Call {
	q := strconv.Quote(script)
	return v2Call{
		open:       patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"kind":"execute","title":%s,"status":"in_progress","rawInput":{"command":%s,"cwd":%q},"content":[{"type":"terminal","terminalId":%q}]}`, id, q, q, cwd, id)),
		permission: fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"S","title":"Run command?","description":"needs to run outside the sandbox","subject":{"type":"tool_call","toolCall":{"toolCallId":%q,"title":%s,"rawInput":{"command":%s,"cwd":%q},"kind":"execute","status":"pending"}},"options":[{"optionId":"allow_once","name":"Yes, proceed","kind":"allow_once"}]}}`, id, q, strconv.Quote(requested), cwd),
		end:        patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"name":"exec_command","status":"completed"}`, id)),
	}
}

// v2Diff is the v2 diff item the filter must show for path.
func v2Diff(op, path, patch string) string {
	return fmt.Sprintf(`{"type":"diff","changes":[{"operation":%q,"path":%q,"fileType":"text"}],"patch":{"format":"git_patch","text":%s}}`, op, path, strconv.Quote(patch))
}

const heredoc = "cat > hello.py <<'EOF'\n# $HOME stays\nprint(\"hi\")\nEOF"

func TestV2WritesShowAsV2DiffsInTheCallAndThePermissionRequest(t *testing.T) {
	cases := []struct {
		name, agent, script, requested string
		before                         *string // the file before; nil: none
		file, after, op, patch         string
	}{
		{name: "claude heredoc", agent: v2Claude, script: heredoc, file: "hello.py", after: "# $HOME stays\nprint(\"hi\")\n", op: "add",
			patch: "new file mode 100644\n--- /dev/null\n+++ P\n@@ -0,0 +1,2 @@\n+# $HOME stays\n+print(\"hi\")\n"},
		{name: "claude append", agent: v2Claude, script: "echo 'appended line' >> notes.txt", before: ptr("a draft note\n"), file: "notes.txt",
			after: "a draft note\nappended line\n", op: "modify", patch: "--- P\n+++ P\n@@ -1 +1,2 @@\n a draft note\n+appended line\n"},
		{name: "claude sed -i", agent: v2Claude, script: "sed -i 's/draft/final/' notes.txt", before: ptr("a draft note\nappended line\n"), file: "notes.txt",
			after: "a final note\nappended line\n", op: "modify", patch: "--- P\n+++ P\n@@ -1,2 +1,2 @@\n-a draft note\n+a final note\n appended line\n"},
		{name: "codex heredoc, quoted in the request", agent: v2Codex, script: heredoc,
			requested: `"cat > hello.py <<'EOF'` + "\n# \"'$HOME stays\nprint(\"hi\")\nEOF'", file: "hello.py", after: "# $HOME stays\nprint(\"hi\")\n", op: "add",
			patch: "new file mode 100644\n--- /dev/null\n+++ P\n@@ -0,0 +1,2 @@\n+# $HOME stays\n+print(\"hi\")\n"},
		{name: "codex sed -i", agent: v2Codex, script: "sed -i 's/draft/final/' notes.txt", before: ptr("a draft note\n"), file: "notes.txt",
			after: "a final note\n", op: "modify", patch: "--- P\n+++ P\n@@ -1 +1 @@\n-a draft note\n+a final note\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := v2Session(t, tc.agent)
			path := filepath.Join(dir, tc.file)
			if tc.before != nil {
				require.NoError(t, os.WriteFile(path, []byte(*tc.before), 0o644))
			}
			call := claudeV2Call("toolu_1", tc.script)
			if tc.agent == v2Codex {
				requested := tc.requested
				if requested == "" {
					requested = tc.script
				}
				call = codexV2Call("call_1", tc.script, requested, dir)
			}
			want := "[" + v2Diff(tc.op, path, "diff --git P P\n"+tc.patch) + "]"
			want = strings.ReplaceAll(want, " P", " "+path)
			var got []chaintest.Sent
			for _, line := range []string{call.open, call.command, call.permission} {
				if line != "" {
					got = append(got, chaintest.Run(t, c, acp.AgentToClient, line)...)
				}
			}
			var update, perm string
			for _, s := range got {
				if strings.Contains(s.Raw, `"subject"`) {
					perm = s.Raw
				} else if strings.Contains(s.Raw, tc.file) {
					update = s.Raw
				}
			}
			require.NotEmpty(t, update, "no update shows the write: %v", got)
			assert.JSONEq(t, want, field(t, update, "params", "update", "content"))
			assert.Equal(t, `"edit"`, field(t, update, "params", "update", "kind"))
			assert.JSONEq(t, fmt.Sprintf(`[{"path":%q}]`, path), field(t, update, "params", "update", "locations"))
			require.NotEmpty(t, perm)
			assert.JSONEq(t, want, field(t, perm, "params", "subject", "toolCall", "content"), "the request shows the diff, the terminal goes")
			assert.Equal(t, `"edit"`, field(t, perm, "params", "subject", "toolCall", "kind"))
			assert.Equal(t, field(t, call.permission, "params", "title"), field(t, perm, "params", "title"), "the request's own title stays")
			assert.NotContains(t, update+perm, "oldText", "v2 has no oldText")

			// The command ran as shown: the end passes unchanged, and the client keeps the diff.
			require.NoError(t, os.WriteFile(path, []byte(tc.after), 0o644))
			end := chaintest.Run(t, c, acp.AgentToClient, call.end)
			require.Len(t, end, 1)
			assert.True(t, end[0].Original, "a verified edit's end passes as it came: %s", end[0].Raw)
		})
	}
}

func ptr(s string) *string { return &s }

func TestV2EditTakenBackWhenTheFileDoesNotHoldIt(t *testing.T) {
	c, dir := v2Session(t, v2Codex)
	path := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(path, []byte("a draft note\n"), 0o644))
	call := codexV2Call("call_1", "sed -i 's/draft/final/' notes.txt", "sed -i 's/draft/final/' notes.txt", dir)
	chaintest.Run(t, c, acp.AgentToClient, call.open, call.permission)
	require.NoError(t, os.WriteFile(path, []byte("a draft note\nsomething else\n"), 0o644))
	got := chaintest.Run(t, c, acp.AgentToClient, call.end)
	require.Len(t, got, 1)
	content := field(t, got[0].Raw, "params", "update", "content")
	assert.Contains(t, content, "did not write what was shown", "a visible note")
	assert.NotContains(t, content, "oldText")
	var items []string
	require.NoError(t, rawjson.Elements([]byte(content), func(_ int, el []byte) bool { items = append(items, string(el)); return true }))
	require.Len(t, items, 2, "the diff of what the file holds now, then the note")
	assert.JSONEq(t, v2Diff("modify", path, "diff --git "+path+" "+path+"\n--- "+path+"\n+++ "+path+"\n@@ -1 +1,2 @@\n a draft note\n+something else\n"), items[0])
	assert.Equal(t, `"completed"`, field(t, got[0].Raw, "params", "update", "status"))
}

func TestV2TurnEndsIdleNotAtThePromptResponse(t *testing.T) {
	c, dir := v2Session(t, v2Claude)
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
	// v2 answers the prompt as the turn starts.
	resp := chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"messageId":"m"}}`)
	require.Len(t, resp, 1)
	call := claudeV2Call("toolu_1", "echo hi > out.txt")
	got := chaintest.Run(t, c, acp.AgentToClient, call.open, call.command)
	require.Len(t, got, 2)
	assert.Equal(t, `"edit"`, field(t, got[1].Raw, "params", "update", "kind"))

	// A later prompt's response (claude queues prompts) must not end this turn's call.
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
	got = chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":3,"result":{"messageId":"m2"}}`)
	require.Len(t, got, 1, "no update of the filter's own at a v2 prompt response: %v", got)

	// The turn ends idle with the call still open and the file not written: the filter takes
	// the edit back with an update of its own, before the idle state.
	idle := patchUpdate(`{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}`)
	got = chaintest.Run(t, c, acp.AgentToClient, idle)
	require.Len(t, got, 2, "a takeback, then the idle state")
	assert.Equal(t, `"execute"`, field(t, got[0].Raw, "params", "update", "kind"))
	assert.Contains(t, field(t, got[0].Raw, "params", "update", "content"), "does not exist")
	assert.Equal(t, idle, got[1].Raw)
	assert.Contains(t, got[0].Raw, filepath.Join(dir, "out.txt"))
}

func TestV2OtherClaudeToolsAndOtherSubjectsStandAside(t *testing.T) {
	c, _ := v2Session(t, v2Claude)
	other := patchUpdate(`{"toolCallId":"t1","name":"mcp__x__run","rawInput":{"command":"echo hi > out.txt"},"status":"pending","title":"x","kind":"execute","sessionUpdate":"tool_call_update"}`)
	got := chaintest.Run(t, c, acp.AgentToClient, other)
	require.Len(t, got, 1)
	assert.True(t, got[0].Original, "another claude tool's command is not a shell command")

	elicit := `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"S","subject":{"type":"other","toolCall":{"toolCallId":"t2","name":"Bash","rawInput":{"command":"echo hi > o.txt"},"kind":"execute"}},"options":[]}}`
	got = chaintest.Run(t, c, acp.AgentToClient, elicit)
	require.Len(t, got, 1)
	assert.True(t, got[0].Original, "a subject that is not a tool call is not read")
}

// applyPatch applies a one-file git patch made by gitPatch to old, as git apply would, so
// the tests check that the patch gives exactly the new text.
func applyPatch(t *testing.T, old, patch string) string {
	t.Helper()
	lines := strings.SplitAfter(patch, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], "@@ ") {
		i++
	}
	if i == len(lines) {
		return old
	}
	var start int
	_, err := fmt.Sscanf(lines[i], "@@ -%d", &start)
	require.NoError(t, err, lines[i])
	oldLines := textLines(old)
	if start > 0 && !strings.Contains(strings.SplitN(lines[i], " ", 3)[1], ",0") {
		start-- // 1-based, unless the side is empty
	}
	out := strings.Join(oldLines[:start], "")
	at := start
	var last byte
	for _, l := range lines[i+1:] {
		if l == "" {
			continue
		}
		if l == noNewline {
			// The line before has no newline on its side: the new text's, unless it was removed.
			if last != '-' {
				out = strings.TrimSuffix(out, "\n")
			}
			continue
		}
		last = l[0]
		switch l[0] {
		case ' ':
			require.Equal(t, strings.TrimSuffix(oldLines[at], "\n"), strings.TrimSuffix(l[1:], "\n"), "context at %d", at)
			out += l[1:]
			at++
		case '-':
			require.Equal(t, strings.TrimSuffix(oldLines[at], "\n"), strings.TrimSuffix(l[1:], "\n"), "removed at %d", at)
			at++
		case '+':
			out += l[1:]
		}
	}
	return out + strings.Join(oldLines[at:], "")
}

func TestGitPatchGivesTheNewTextExactly(t *testing.T) {
	long := strings.Repeat("x\n", 20)
	cases := []struct {
		name, old string
		exists    bool
		new, want string // want: the hunk text after the header; "" for no patch
	}{
		{name: "new file", new: "a\nb\n", want: "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{name: "new file without the last newline", new: "a\nb", want: "@@ -0,0 +1,2 @@\n+a\n+b\n" + noNewline},
		{name: "empty new file", new: ""},
		{name: "same text", old: "a\n", exists: true, new: "a\n"},
		{name: "append", old: "1\n2\n3\n4\n5\n", exists: true, new: "1\n2\n3\n4\n5\n6\n", want: "@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+6\n"},
		{name: "a line in the middle", old: long + "old\n" + long, exists: true, new: long + "new\n" + long,
			want: "@@ -18,7 +18,7 @@\n x\n x\n x\n-old\n+new\n x\n x\n x\n"},
		{name: "newline added at the end", old: "a\nb", exists: true, new: "a\nb\n", want: "@@ -1,2 +1,2 @@\n a\n-b\n" + noNewline + "+b\n"},
		{name: "two changes far apart: one hunk", old: "a\n" + long + "b\n", exists: true, new: "A\n" + long + "B\n"},
		{name: "emptied", old: "a\nb\n", exists: true, new: "", want: "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{name: "context without the last newline", old: "a\nz", exists: true, new: "b\nz", want: "@@ -1,2 +1,2 @@\n-a\n+b\n z\n" + noNewline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := gitPatch("/w/f.txt", tc.old, tc.exists, tc.new)
			if tc.old == tc.new && tc.exists || !tc.exists && tc.new == "" {
				assert.Empty(t, p, "no line to show: no patch")
				return
			}
			header := "diff --git /w/f.txt /w/f.txt\n--- /w/f.txt\n+++ /w/f.txt\n"
			if !tc.exists {
				header = "diff --git /w/f.txt /w/f.txt\nnew file mode 100644\n--- /dev/null\n+++ /w/f.txt\n"
			}
			require.True(t, strings.HasPrefix(p, header), p)
			if tc.want != "" {
				assert.Equal(t, header+tc.want, p)
			}
			assert.Equal(t, tc.new, applyPatch(t, tc.old, p), "the patch applied to the old text gives the new:\n%s", p)
		})
	}
}

func TestGitPatchQuotesPathsAsGit(t *testing.T) {
	assert.Equal(t, `/w/a b.txt`, quoteGitPath("/w/a b.txt"))
	assert.Equal(t, `"/w/\"q\"\\\t\303\251"`, quoteGitPath("/w/\"q\"\\\té"))
	p := gitPatch("/w/a b.txt", "", false, "x\n")
	assert.Contains(t, p, "+++ /w/a b.txt\t\n", "git ends a name with a space with a tab")
}
