package shellpatch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
