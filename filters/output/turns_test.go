package output

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
)

// TestTheResponseToAPromptEndsItsTurn: the calls of a session whose prompt
// was answered are forgotten, so a snapshot of one that comes later passes
// as the agent sent it; any other response leaves them followed, and the
// snapshot becomes a delta.
func TestTheResponseToAPromptEndsItsTurn(t *testing.T) {
	later := snap("t1", "ab")
	followed := delta("t1", "b")
	for _, tc := range []struct {
		name  string
		steps []step
		last  string // what the client is sent for the later snapshot
	}{
		{"the prompt's result", []step{fromAgent(promptDone)}, later},
		{"the prompt's error", []step{fromAgent(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`)}, later},
		{"the response to another request", []step{fromAgent(`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`)}, followed},
		{"another session's prompt", []step{
			{dir: acp.ClientToAgent, line: `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s2","prompt":[]}}`},
			fromAgent(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`),
		}, followed},
		{"the agent's request of the prompt's id", []step{
			fromAgent(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"x"},"options":[],"stopReason":"","error":""}}`),
		}, followed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, zedClient, codexAgent, &Deltas{})
			h.run(fromAgent(execCall("t1")), fromAgent(snap("t1", "a")))
			h.run(tc.steps...)
			h.take()
			h.agent(later)
			assert.Equal(t, []string{tc.last}, h.take())
			assert.Empty(t, h.errs)
		})
	}
}
