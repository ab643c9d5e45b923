package output

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codex-acp 2.x (the ACP registry's Codex, measured with 2.6.0) streams a command's output
// as _meta.terminal_output_delta to every client that did not declare terminal_output, asked
// or not, and ends the call with status and terminal_exit alone: no content, no rawOutput.
// Its read and list commands announce no terminal, and stream into one all the same.
const codex2Agent = "@agentclientprotocol/codex-acp"

// codex2Call is 2.x's tool_call of exec_command: a terminal item and terminal_info.
func codex2Call(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","name":"exec_command","kind":"execute","title":"seq 3","status":"in_progress","content":[{"type":"terminal","terminalId":"` + id + `"}],"rawInput":{"command":"seq 3","cwd":"/p"},"_meta":{"terminal_info":{"cwd":"/p","terminal_id":"` + id + `"}}`)
}

// codex2ListCall is 2.x's tool_call of a command it reads as a listing: no terminal.
func codex2ListCall(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","kind":"read","title":"List files","status":"in_progress"`)
}

// codex2Delta is a chunk of output, sent unasked to a client without the extension.
func codex2Delta(id, data string) string {
	return upd(id, `"_meta":{"terminal_output_delta":{"data":`+q(data)+`,"terminal_id":"`+id+`"}}`)
}

// codex2End ends a call: its exit, and for a listing the last chunk and rawOutput's exit code.
func codex2End(id string) string {
	return upd(id, `"name":"exec_command","status":"completed","_meta":{"terminal_exit":{"exit_code":0,"signal":null,"terminal_id":"`+id+`"}}`)
}

func codex2ListEnd(id, data string) string {
	return upd(id, `"name":"exec_command","status":"completed","rawOutput":{"exit_code":0},"_meta":{"terminal_output_delta":{"data":`+q(data)+`,"terminal_id":"`+id+`"}}`)
}

// TestDeltasShowsTerminalOutputSentUnasked: --deltas alone asks the agent for nothing, and
// shows a client the terminal output an agent streams to it unasked, in the form it reads: as
// text for a client without the extension, under terminal_output for a Zed-like one. A client
// that asked for terminal_output_delta gets it as it is.
func TestDeltasShowsTerminalOutputSentUnasked(t *testing.T) {
	for _, tc := range []struct {
		name, client string
		want         []string // what the client shows of c1 and c2
	}{
		{"plain", plainClient, []string{"line 1\nline 2\n", "a.txt\nb.txt\n"}},
		{"zed-like", zedClient, []string{"line 1\nline 2\n", "a.txt\nb.txt\n"}},
		{"asked for deltas", deltaClient, []string{"line 1\nline 2\n", "a.txt\nb.txt\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.client, codex2Agent, &Deltas{}, &TerminalOutput{OnlyUnasked: true})
			init := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
			h.client(init)
			require.Equal(t, []string{init}, h.toAg, "--deltas asks the agent for nothing")
			h.agent(codex2Call("c1"))
			h.agent(codex2Delta("c1", "line 1\n"))
			h.agent(codex2Delta("c1", "line 2\n"))
			h.agent(codex2End("c1"))
			h.agent(codex2ListCall("c2"))
			h.agent(codex2ListEnd("c2", "a.txt\nb.txt\n"))
			h.drain()
			got := seen(t, h.take())
			assert.Equal(t, tc.want[0], trimFence(got["c1"]), "the command's output")
			assert.Equal(t, tc.want[1], trimFence(got["c2"]), "the listing, streamed into a terminal it never announced")
		})
	}
}

// TestTerminalOutputShowsOutputOfATerminalNeverAnnounced: a client with the extension shows a
// terminal's output only in the terminal item the call's content announced; codex-acp 2.x
// streams a listing's output into a terminal no content item showed. That call is shown as
// to a client without the extension, as text, to its end; other calls are left as they are.
func TestTerminalOutputShowsOutputOfATerminalNeverAnnounced(t *testing.T) {
	for _, client := range []string{zedClient, deltaClient} {
		h := newHarness(t, client, codex2Agent, &TerminalOutput{})
		h.agent(codex2Call("c1"))
		h.agent(codex2Delta("c1", "line 1\n"))
		h.agent(codex2End("c1"))
		h.agent(codex2ListCall("c2"))
		h.agent(codex2ListEnd("c2", "a.txt\nb.txt\n"))
		h.drain()
		lines := h.take()
		require.Len(t, lines, 5)
		assert.Contains(t, lines[1], `"terminal_output`, "an announced terminal keeps streaming")
		assert.JSONEq(t, upd("c2", `"name":"exec_command","status":"completed","rawOutput":{"exit_code":0},"content":`+textContent(shFence("a.txt\nb.txt\n"))), lines[4])
	}
}

// trimFence is the text inside a client's view of a call, without codex's sh fence.
func trimFence(s string) string {
	const open, end = "```sh\n", "```\n"
	if len(s) >= len(open)+len(end) && s[:len(open)] == open && s[len(s)-len(end):] == end {
		return s[len(open) : len(s)-len(end)]
	}
	return s
}
