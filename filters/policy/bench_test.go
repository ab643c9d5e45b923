package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// discard is an Emitter that keeps nothing.
type discard struct{}

func (discard) Emit(acp.Direction, []byte) error { return nil }

// heredocScript is a 40-line heredoc write, the longest kind of command agents commonly send.
var heredocScript = "cat > notes.md <<'EOF'\n" + strings.Repeat("a line of notes with $HOME and `date` in it\n", 40) + "EOF"

// BenchmarkDecision is one decision, from the permission request's bytes to the answer, for
// the commands of the policy: allowed, denied, asked (a loop the proxy cannot read),
// and a long heredoc; and at the Tool Interception checkpoint. Goal: ≤ 1 ms.
func BenchmarkDecision(b *testing.B) {
	cwd := session(b)
	for _, bc := range []struct{ name, line string }{
		{"allow npm test", permission(0, "npm test")},
		{"deny git push", permission(0, "npm test && git push origin main")},
		{"ask loop", permission(0, "for i in $(seq 1 5); do echo line $i; sleep 0.05; done")},
		{"heredoc 40 lines", permission(0, heredocScript)},
		{"checkpoint deny git push", interceptRequest(0, "before", "npm test && git push origin main")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := &Filter{Policy: mustParse(b, tablePolicy)}
			caps := capabilities.New()
			chain := filters.NewChain(caps, f)
			_ = chain // the tracker learns the session's directory through the chain
			m0 := filters.NewMessage(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+cwd+`","mcpServers":[]}}`), time.Time{}, caps)
			caps.Observe(&m0.Message)
			caps.Observe(&filters.NewMessage(acp.AgentToClient, []byte(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`), time.Time{}, caps).Message)
			line := []byte(bc.line)
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				m := filters.NewMessage(acp.AgentToClient, line, time.Time{}, caps)
				_ = f.Apply(m, discard{})
			}
		})
	}
}

// BenchmarkOtherMessages is what the policy costs a message it does not decide (a tool call's
// output update): the price of turning it on for the rest of the session.
func BenchmarkOtherMessages(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"line 42\n"}}}}}`)
	f := &Filter{Policy: mustParse(b, tablePolicy)}
	caps := capabilities.New()
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		m := filters.NewMessage(acp.AgentToClient, line, time.Time{}, caps)
		_ = f.Apply(m, discard{})
	}
}
