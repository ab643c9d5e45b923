package changes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Which agent lines the filter reads: decided from the bytes, never
// missing a line that starts or ends a call, asks to run one, or may end a
// turn.
func TestMattersDecidesFromTheBytes(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"a \"status\": \"completed\", \\\"title\":\n"}}}`), false},
		{update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`), false},
		{update(`{"sessionUpdate":"plan","entries":[{"content":"x","status":"pending"}]}`), false},
		{started("c1", "ls"), true},
		{ended("c1", "completed", "out"), true},
		{update(`{"toolCallId":"c1","status":"completed","sessionUpdate":"tool_call_update"}`), true},
		{update(`{"sessionUpdate" : "tool_call_update", "toolCallId":"c1", "status" : "failed"}`), true},
		{update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"ls -la"}`), true},
		{`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"c1"},"options":[]}}`, true},
		{endTurn, true},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"sessionId":"S","path":"/a"}}`, false},
		{"not json at all", true},
	} {
		assert.Equal(t, tc.want, matters([]byte(tc.line)), "%s", tc.line)
	}
}
