package shellpatch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// runAt processes lines from the agent read at at, as the relay does.
func runAt(t *testing.T, c *filters.Chain, at time.Time, lines ...string) []chaintest.Sent {
	t.Helper()
	var out []chaintest.Sent
	sink := func(l filters.Line) error {
		out = append(out, chaintest.Sent{Dir: l.Dir, Raw: string(l.Raw), Original: l.Original})
		return nil
	}
	dr := filters.NewDriver(c, filters.NewManualClock(at), sink)
	for _, l := range lines {
		require.NoError(t, dr.Process(filters.NewMessage(acp.AgentToClient, []byte(l), at, nil), sink))
	}
	return out
}

// A command first seen running (codex-acp 2.6's default mode runs a
// heredoc without asking, its tool_call in_progress) may have written its
// file before the proxy reads it: a file changed since it may have started
// is not read as its text before, and no edit is shown — never a diff whose
// old text is the new. A file older than that is read as before.
func TestAWriteSeenRunningIsShownOnlyWhenItsTextBeforeIsKnown(t *testing.T) {
	script := "cat > hello.py <<'EOF'\nprint(\"hi\")\nEOF"
	for _, tc := range []struct {
		name, setup string
		shown       bool
	}{
		{"written by the command already", `cat > hello.py <<'EOF'
print("hi")
EOF`, false},
		{"untouched for a minute", `echo old > hello.py && touch -d '-1 min' hello.py`, true},
		{"not there yet", "", true},
	} {
		c, dir := shellPatchSession(t, &Filter{})
		if tc.setup != "" {
			cmd := exec.Command("bash", "-c", tc.setup)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
		}
		got := runAt(t, c, time.Now(), codexCall("call_1", script, dir))
		require.Len(t, got, 1)
		if !tc.shown {
			assert.True(t, got[0].Original, "%s: left alone: %s", tc.name, got[0].Raw)
			continue
		}
		assert.Contains(t, got[0].Raw, fmt.Sprintf(`"type":"diff","path":%q`, filepath.Join(dir, "hello.py")), tc.name)
		old, _ := os.ReadFile(filepath.Join(dir, "hello.py"))
		assert.NotContains(t, got[0].Raw, `"oldText":"print(\"hi\")\n"`, "%s: was %q", tc.name, old)
	}
}

// A command seen running whose text before is not known is shown once a
// message shows it waiting: a permission request (codex-acp 2.6 reports a
// command in_progress before it asks to run it).
func TestAWriteNotShownWhileRunningIsShownWhenItAsks(t *testing.T) {
	c, dir := v2Session(t, "@agentclientprotocol/codex-acp")
	cmd := exec.Command("bash", "-c", "echo old > a.txt")
	cmd.Dir = dir
	require.NoError(t, cmd.Run())
	v2 := codexV2Call("c1", "echo new >> a.txt", "echo new >> a.txt", dir)
	now := time.Now()
	got := runAt(t, c, now, v2.open)
	require.Len(t, got, 1)
	assert.True(t, got[0].Original, "running, the file just written: left alone")
	got = runAt(t, c, now, v2.permission)
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Raw, `"patch"`, "asked: the edit is shown")
}

// A file the session's previous command wrote a moment ago is that
// command's: the next command, seen running, is shown with the file's
// text as it left it.
func TestAFileThePreviousCommandWroteIsReadAsBefore(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	cmd := exec.Command("bash", "-c", "echo first > log.txt")
	cmd.Dir = dir
	require.NoError(t, cmd.Run())
	now := time.Now()
	runAt(t, c, now, codexCall("c0", "echo first > log.txt", dir), patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"c0","status":"completed"}`))
	got := runAt(t, c, now.Add(10*time.Millisecond), codexCall("c1", "echo more >> log.txt", dir))
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Raw, `"oldText":"first\n","newText":"first\nmore\n"`)
}

// A call opened running whose file changed a moment before is not shown as it opens (the
// command may have written the file already); its permission request, sent before the command
// runs, shows the edit (codex-acp 2.6 opens a call in_progress, then asks). A permission request
// is not the call: a client that keeps its prompts apart from its calls still shows the call as
// the agent opened it, a terminal. So the update that ends the call states the edit whole — the
// kind, the locations, the diff the request showed, no terminal — in ACP v1 and v2.
func TestAnEditFirstShownInItsPermissionRequestEndsAsTheEdit(t *testing.T) {
	const script = "cat > hello.py <<'EOF'\nprint('hi')\nEOF"
	requested := `"` + script + `"` // codex-acp 2.6 asks with the script as one shell word
	v1 := func(dir string) v2Call {
		q, cwd := strconv.Quote(script), strconv.Quote(dir)
		return v2Call{
			open: patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"call_1","name":"exec_command","kind":"execute","title":%s,"status":"in_progress","content":[{"type":"terminal","terminalId":"call_1"}],"rawInput":{"command":%s,"cwd":%s},"_meta":{"terminal_info":{"cwd":%s,"terminal_id":"call_1"}}}`, q, q, cwd, cwd)),
			permission: fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"call_1","title":%s,"rawInput":{"command":%s,"cwd":%s},"kind":"execute","status":"pending"},"options":[{"optionId":"allow_once","name":"Yes, proceed","kind":"allow_once"}]}}`,
				q, strconv.Quote(requested), cwd),
			end: patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","name":"exec_command","status":"completed","_meta":{"terminal_exit":{"exit_code":0,"signal":null,"terminal_id":"call_1"}}}`),
		}
	}
	for _, tc := range []struct {
		name    string
		session func(t *testing.T) (*filters.Chain, string)
		call    func(dir string) v2Call
		request []string // where the request names the call
	}{
		{"v1", func(t *testing.T) (*filters.Chain, string) { return namedAgentSession(t, v2Codex) }, v1, []string{"params", "toolCall"}},
		{"v2", func(t *testing.T) (*filters.Chain, string) { return v2Session(t, v2Codex) },
			func(dir string) v2Call { return codexV2Call("call_1", script, requested, dir) }, []string{"params", "subject", "toolCall"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := tc.session(t)
			call, path := tc.call(dir), filepath.Join(dir, "hello.py")
			opened := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
			require.NoError(t, os.Chtimes(path, opened.Add(-ranWindow/5), opened.Add(-ranWindow/5)))

			got := runAt(t, c, opened, call.open)
			require.Len(t, got, 1)
			require.True(t, got[0].Original, "opened running, its file changed a moment before: left alone: %s", got[0].Raw)
			got = runAt(t, c, opened, call.permission)
			require.Len(t, got, 1)
			asked := got[0].Raw
			require.Equal(t, `"edit"`, field(t, asked, append(tc.request, "kind")...), "the request, before the command runs, shows the edit")

			require.NoError(t, os.WriteFile(path, []byte("print('hi')\n"), 0o644)) // the command ran
			got = runAt(t, c, opened.Add(time.Second), call.end)
			require.Len(t, got, 1)
			end := got[0].Raw
			assert.Equal(t, `"completed"`, field(t, end, "params", "update", "status"))
			assert.Equal(t, `"edit"`, field(t, end, "params", "update", "kind"), "the call ends as the edit: %s", end)
			assert.JSONEq(t, fmt.Sprintf(`[{"path":%q}]`, path), field(t, end, "params", "update", "locations"))
			assert.JSONEq(t, field(t, asked, append(tc.request, "content")...), field(t, end, "params", "update", "content"), "the diff the request showed, not the terminal")
			assert.NotContains(t, end, "terminal_exit")
		})
	}
}
