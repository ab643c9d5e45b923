package output

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// TestUnknownSessionsKeepTheStateBounded: the output filters keep no state
// per session, only per call, keyed by session and call id in a
// toolcall.List of at most 128 calls. So 100,000 subagents, each under a
// session id no session/new created and each with a command whose output
// the filters translate, leave them holding at most 128 calls each.
func TestUnknownSessionsKeepTheStateBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 sessions")
	}
	const n = 100_000
	for _, client := range []string{`{}`, `{"_meta":{"terminal_output":true}}`} {
		t.Run(client, func(t *testing.T) {
			deltas, term := &Deltas{}, &TerminalOutput{}
			persisted := &PersistedOutput{Expand: true}
			c := filters.NewChain(capabilities.New(), deltas, term, persisted)
			chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":`+client+`}}`)
			chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","version":"2.6.0"}}}`)
			for i := range n {
				sid := fmt.Sprintf("sub-%06d", i)
				up := func(u string) string {
					return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":%s}}`, sid, u)
				}
				// A call that never ends: the filters keep it until the
				// bound pushes it out.
				chaintest.Run(t, c, acp.AgentToClient,
					up(`{"sessionUpdate":"tool_call","toolCallId":"call_1","name":"exec_command","kind":"execute","title":"ls","status":"in_progress","content":[{"type":"terminal","terminalId":"call_1"}],"rawInput":{"command":"ls","cwd":"/w"},"_meta":{"terminal_info":{"cwd":"/w","terminal_id":"call_1"}}}`),
					up(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","_meta":{"terminal_output_delta":{"terminal_id":"call_1","data":"out\n"}}}`))
			}
			for name, l := range map[string]int{
				"deltas' calls": deltas.calls.Len(), "deltas' ended calls": deltas.ended.calls.Len(),
				"terminal-output's calls": term.calls.Len(), "terminal-output's ended calls": term.ended.calls.Len(),
				"persisted-output's calls": persisted.shown.Len(),
			} {
				assert.LessOrEqual(t, l, 128, name)
			}
		})
	}
}
