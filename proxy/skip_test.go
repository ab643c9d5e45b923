package proxy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// rewritesTools rewrites every line about a tool call and skips the rest.
type rewritesTools struct{ applied []string }

func (*rewritesTools) Name() string                { return "rewrites-tools" }
func (*rewritesTools) Skips(g filters.Glance) bool { return !g.Tool }
func (f *rewritesTools) Apply(m *filters.Message, out filters.Emitter) error {
	f.applied = append(f.applied, string(m.Raw))
	if m.Dir == acp.AgentToClient && strings.Contains(string(m.Raw), `"tool`) {
		return out.Emit(m.Dir, []byte(`{"jsonrpc":"2.0","method":"rewritten"}`))
	}
	return nil
}

// A line every filter skips is written as it was read, and no filter is
// called for it; the others go through the chain, in order.
func TestALineEveryFilterSkipsIsWrittenAsRead(t *testing.T) {
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`
	tool := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}`
	f := &rewritesTools{}
	relay := &Relay{Chain: filters.NewChain(capabilities.New(), f)}
	var toClient bytes.Buffer
	conn := relay.Open(&bytes.Buffer{}, &toClient)
	require.NoError(t, conn.Pump(acp.AgentToClient, strings.NewReader(chunk+"\n"+tool+"\n"+chunk+"  \n")))
	assert.Equal(t, chunk+"\n"+`{"jsonrpc":"2.0","method":"rewritten"}`+"\n"+chunk+"  \n", toClient.String())
	assert.Equal(t, []string{tool}, f.applied)
}
