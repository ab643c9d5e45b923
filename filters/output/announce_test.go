package output

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A tool_call is told from its head when the update begins with its kind
// (codex-acp, gemini, opencode); from a search of the line when it does
// not (claude-agent-acp begins with _meta). A command's output streaming is
// not searched, whatever it prints.
func TestMayAnnounce(t *testing.T) {
	const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`
	for line, want := range map[string]bool{
		head + `{"sessionUpdate":"tool_call","toolCallId":"c1","kind":"execute"}}}`:                                                    true,
		head + `{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"data":"\"tool_call\" printed"}}}}}`: false,
		head + `{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"c1","sessionUpdate":"tool_call","kind":"execute"}}}`:         true,
		head + `{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"c1","sessionUpdate":"tool_call_update"}}}`:                   false,
		`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call"},"sessionId":"s1"}}`:               true,
	} {
		assert.Equal(t, want, mayAnnounce([]byte(line)), line)
	}
}
