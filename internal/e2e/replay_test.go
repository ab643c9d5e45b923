package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// TestLiveAndReplayAgree runs the live proxy with filters and --record
// around a real agent, then replays the recorded input with the same
// flags: the replay gives each side what the live proxy gave it. Where
// output is coalesced on a timer (a client without the extension), the
// number and timing of tool updates follow the clock, so there the test
// compares what the client ends up showing of every tool call (each
// field as the last update that carried it left it, and the terminal
// output appended), the first update of each call, and everything else
// line for line. Elsewhere the streams are byte-identical.
func TestLiveAndReplayAgree(t *testing.T) {
	const lines = 500
	cases := []struct {
		name     string
		agent    string
		policy   string // codex approval_policy
		zed      bool
		commands []string
		flags    []string
		timed    bool // output is coalesced on a timer for this client
		exists   bool // the heredoc's target exists before the session
	}{
		{name: "codex-0.13-plain-shell-500/terminal-output+deltas", agent: "codex-0.13",
			commands: []string{linesCommand(lines)}, flags: []string{"--terminal-output", "--deltas"}, timed: true},
		{name: "codex-0.13-plain-shell-500/deltas", agent: "codex-0.13",
			commands: []string{linesCommand(lines)}, flags: []string{"--deltas"}, timed: true},
		{name: "codex-0.13-zed-shell-500/terminal-output+deltas", agent: "codex-0.13", zed: true,
			commands: []string{linesCommand(lines)}, flags: []string{"--terminal-output", "--deltas"}},
		// "untrusted": codex waits for permission before it runs the
		// write, so the live proxy reads the target before it is written,
		// as the replay (with the file removed again) does.
		{name: "codex-0.16-zed-heredoc/shell-to-patch", agent: "codex-0.16", policy: "untrusted", zed: true,
			commands: []string{heredocScript, "ls"}, flags: []string{"--shell-to-patch"}},
		{name: "codex-0.13-plain-heredoc/all", agent: "codex-0.13", policy: "untrusted",
			commands: []string{heredocScript, "ls"}, flags: []string{"--shell-to-patch", "--terminal-output", "--deltas"}, timed: true},
		{name: "claude-0.23-zed-heredoc-existing/shell-to-patch", agent: "claude-0.23", zed: true, exists: true,
			commands: []string{heredocScript, "ls"}, flags: []string{"--shell-to-patch"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := launch(t, tc.agent, tc.commands, false, tc.policy)
			target := filepath.Join(s.agent.Dir, heredocFile)
			const oldContent = "print('the old version')\n"
			if tc.exists {
				require.NoError(t, os.WriteFile(target, []byte(oldContent), 0o644))
			}
			trace := filepath.Join(t.TempDir(), "live.jsonl")
			opts := acpclient.Options{
				Argv:         append(append(append([]string{proxyBin(t)}, tc.flags...), "--record", trace, "--"), s.agent.Argv...),
				Env:          s.agent.Env,
				Dir:          s.agent.Dir,
				Capabilities: clientCaps(tc.zed),
			}
			var c *acpclient.Client
			t.Run("live", func(t *testing.T) { // its end stops the proxy: the trace is complete
				c = acpclient.Run(t, opts, "run it")
				n := len(c.ToolCalls())
				assert.Equal(t, len(tc.commands), n, "%d tool calls, want %d\n%s", n, len(tc.commands), c.Report())
			})
			if t.Failed() {
				t.FailNow()
			}
			live := readTraceFile(t, trace)
			gotLive := clientLines(c)

			// shell-to-patch reads the target when it sees the call, and
			// again when the call ends: the trace holds both, so what is
			// on this disk now does not matter to the replay.
			require.NoError(t, os.WriteFile(target, []byte("print('not what the session saw')\n"), 0o644))
			replayed := replayTrace(t, trace, tc.flags...)
			gotReplay := linesOf(replayed, acp.AgentToClient)

			// What the agent got: nothing on that side is timed.
			sameLines(t, "client→agent, live vs replay", delivered(live, acp.ClientToAgent), linesOf(replayed, acp.ClientToAgent))
			// What the client got.
			if !tc.timed {
				sameLines(t, "agent→client, live vs replay", gotLive, gotReplay)
				sameLines(t, "agent→client, live recording vs client", delivered(live, acp.AgentToClient), gotLive)
			} else {
				sameLines(t, "agent→client without tool updates, live vs replay", withoutToolUpdates(t, gotLive), withoutToolUpdates(t, gotReplay))
				sameLines(t, "first update of each tool call, live vs replay", firstUpdates(t, gotLive), firstUpdates(t, gotReplay))
				sameFinalStates(t, "live vs replay", gotLive, gotReplay)
				sameFinalStates(t, "live recording vs client", delivered(live, acp.AgentToClient), gotLive)
			}
			oldText := "null"
			if tc.exists {
				oldText = mustJSON(t, oldContent)
			}
			checkFiltersWorked(t, tc.flags, tc.commands, tc.zed, oldText, gotLive, c)
			t.Logf("client got %d lines live, %d in the replay; the agent sent %d", len(gotLive), len(gotReplay), len(linesOf(live, acp.AgentToClient)))
		})
	}
}

// checkFiltersWorked guards against comparing two untouched streams: the
// filters under test did change what the client got.
func checkFiltersWorked(t *testing.T, flags, commands []string, zed bool, oldText string, got [][]byte, c *acpclient.Client) {
	t.Helper()
	checked := 0
	all := strings.Join(flags, " ")
	var output strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&output, "line %d\n", i)
	}
	for id, st := range finalStates(t, got) {
		switch {
		case strings.Contains(st["rawInput"], "cat > "+heredocFile):
			checked++
			if strings.Contains(all, "--shell-to-patch") {
				if assert.Equal(t, `"edit"`, st["kind"], "call %s: kind %s, content %s; want the heredoc shown as an edit", id, st["kind"], shorten([]byte(st["content"]))) {
					assert.Contains(t, st["content"], `"type":"diff"`, "call %s: kind %s, content %s; want the heredoc shown as an edit", id, st["kind"], shorten([]byte(st["content"])))
				}
			}
			if strings.Contains(all, "--shell-to-patch") {
				assert.Contains(t, st["content"], `"oldText":`+oldText, "call %s: content %s, want oldText %s", id, shorten([]byte(st["content"])), oldText)
			}
		case strings.Contains(st["title"], "seq 1 500"):
			checked++
			if zed {
				assert.Equal(t, output.String(), st["terminal data"], "call %s: the terminal shows %d bytes, want the %d of the output", id, len(st["terminal data"]), output.Len())
			}
			if !zed {
				assert.Contains(t, st["content"], "line 500", "call %s: final content %s lacks the end of the output", id, shorten([]byte(st["content"])))
			}
			n := c.ToolCall(id).Count
			if !zed {
				assert.LessOrEqual(t, n, 100, "call %s: %d updates reached the plain client; coalesced, 500 lines take far fewer", id, n)
			}
		}
	}
	assert.Equal(t, 1, checked, "found %d calls of %q to check, want 1", checked, commands[0])
}

// TestDeltasTurnRealSnapshotsIntoTerminalOutput: no real agent sends
// snapshots to a client with the terminal-output extension (codex-acp 0.13
// streams terminal_output to it itself), so the committed snapshot trace
// is replayed as if its client had advertised the extension (only its
// initialize request changed). --deltas then gives the call a terminal
// and sends only what each snapshot adds: the client's terminal ends up
// holding the whole output, once.
func TestDeltasTurnRealSnapshotsIntoTerminalOutput(t *testing.T) {
	src := filepath.Join(tracesDir(t), fmt.Sprintf("codex-0.13-plain-shell-%d.jsonl", mediumLines))
	trace, err := os.ReadFile(src)
	require.NoError(t, err)
	plain, _ := json.Marshal(json.RawMessage(acpclient.PlainCapabilities))
	zed, _ := json.Marshal(json.RawMessage(acpclient.ZedLikeCapabilities))
	require.Equal(t, 1, bytes.Count(trace, plain), "the trace's initialize does not hold %s once", plain)
	asZed := filepath.Join(t.TempDir(), "as-zed.jsonl")
	require.NoError(t, os.WriteFile(asZed, bytes.Replace(trace, plain, zed, 1), 0o644))
	got := linesOf(replayTrace(t, asZed, "--deltas"), acp.AgentToClient)
	states := finalStates(t, got)
	require.Len(t, states, 1, "%d tool calls, want 1", len(states))
	var want strings.Builder
	for i := 1; i <= mediumLines; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	for id, st := range states {
		assert.Equal(t, want.String(), st["terminal data"], "the terminal holds %d bytes, want the %d of the output:\n%s", len(st["terminal data"]), want.Len(), shorten([]byte(st["terminal data"])))
		assert.True(t, jsonEqual(st["terminal exit"], fmt.Sprintf(`{"terminal_id":%q,"exit_code":0,"signal":null}`, id)), "terminal_exit %s, want exit 0 of terminal %s", st["terminal exit"], id)
		assert.True(t, jsonEqual(st["content"], fmt.Sprintf(`[{"type":"terminal","terminalId":%q}]`, id)), "content %s, want the terminal", shorten([]byte(st["content"])))
		assert.Equal(t, `"completed"`, st["status"], "status %s", st["status"])
	}
	before, after := 0, 0
	for _, l := range linesOf(readTraceFile(t, asZed), acp.AgentToClient) {
		before += len(l) + 1
	}
	for _, l := range got {
		after += len(l) + 1
	}
	t.Logf("agent→client: %d bytes of snapshots → %d bytes of deltas", before, after)
	assert.LessOrEqual(t, after*10, before, "%d bytes after --deltas, from %d: want a tenth at most", after, before)
}
