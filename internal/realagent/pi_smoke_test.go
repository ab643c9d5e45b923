package realagent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// piFails is a command that writes to both streams and exits 3.
const piFails = "echo out; echo err >&2; exit 3"

// TestPiSmoke runs a five-line command and one that fails through pi-acp
// and pi, offline, with each client kind, and checks its shapes
// (docs/agents.md): the same messages for both clients, never a
// permission request, a bash call whose command is only its title, and
// its output streamed under the terminal-output extension's _meta whether
// the client advertised it or not, with no rawInput or rawOutput.
func TestPiSmoke(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{fiveLines, piFails}})
			agent := realagent.Pi(t, realagent.PiOptions{ModelBaseURL: model.BaseURL()})
			c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
			shell := "tool " + mockmodel.ChatShellTool
			assert.Equal(t, []string{shell, shell, "answer"}, replies(model.Requests()), "model replies: two bash calls and an answer")
			assert.Empty(t, c.PermissionRequests(), "pi asks no permission")
			calls := c.ToolCalls()
			require.Len(t, calls, 2, "tool calls\n%s", c.Report())
			ok := checkPiCall(t, agent, calls[0], "call_mock_1", fiveLines, "completed", fiveLinesOutput, 0)
			// A failure: pi's own note ends the output, and the exit code
			// is 1, not the command's.
			ok = checkPiCall(t, agent, calls[1], "call_mock_2", piFails, "failed", "out\nerr\n\n\nCommand exited with code 3", 1) && ok
			p := c.Problems()
			assert.Empty(t, p, "client problems: %q", p)
			if !ok || t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// checkPiCall checks one bash call: a tool_call with the command as its
// title and a terminal of the call's id (terminal_info naming the session
// cwd), updates that stream output as terminal_output appends, and a final
// update with terminal_exit; no content after the tool_call, no rawInput,
// no rawOutput.
func checkPiCall(t *testing.T, agent *realagent.Agent, call acpclient.ToolCall, id, command, status, output string, exit int) bool {
	t.Helper()
	updates, err := call.Decoded()
	require.NoError(t, err)
	require.NotEmpty(t, updates)
	ok := assert.Equal(t, id, call.ID, "tool call id")
	first, last := updates[0], updates[len(updates)-1]
	ok = assert.Equal(t, "tool_call", first.SessionUpdate, "first update") && ok
	ok = assert.Equal(t, "execute", first.Kind, "tool_call kind") && ok
	ok = assert.Equal(t, "pending", first.Status, "tool_call status") && ok
	if assert.NotNil(t, first.Title, "tool_call title") {
		ok = assert.Equal(t, command, *first.Title, "tool_call title: the command") && ok
	}
	ok = assert.True(t, terminalContent(first, id), "tool_call content %+v, want the call's terminal", first.Content) && ok
	if info, has := first.Terminal("terminal_info"); assert.True(t, has, "tool_call _meta %v, want terminal_info", first.Meta) {
		ok = assert.Equal(t, id, info.TerminalID, "terminal_info.terminal_id") && ok
		ok = assert.Equal(t, agent.Dir, info.CWD, "terminal_info.cwd: the session cwd") && ok
	}
	for i, u := range updates {
		ok = assert.Nil(t, u.RawInput, "update %d rawInput", i) && ok
		ok = assert.Nil(t, u.RawOutput, "update %d rawOutput", i) && ok
		if i > 0 {
			ok = assert.False(t, u.HasContent, "update %d content %+v", i, u.Content) && ok
		}
	}
	ok = assert.Equal(t, output, acpclient.TerminalData(updates), "terminal_output data, concatenated") && ok
	ok = assert.Equal(t, status, last.Status, "final status") && ok
	if e, has := last.Terminal("terminal_exit"); assert.True(t, has, "final _meta %v, want terminal_exit", last.Meta) && assert.NotNil(t, e.ExitCode, "terminal_exit.exit_code") {
		ok = assert.Equal(t, exit, *e.ExitCode, "terminal_exit.exit_code") && ok
	}
	return ok
}
