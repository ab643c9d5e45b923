package telemetry

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// The tap forgets sessions: one the client closes ends then; past
// maxSessions, the least recently used is ended and forgotten (its span
// exported then, not at the connection's end).
func TestSessionsAreForgotten(t *testing.T) {
	p, exp := memProvider(nil)
	conn := p.NewConn(ConnInfo{Agent: []string{"codex-acp"}})
	at := time.Now()
	feed := func(d acp.Direction, format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		conn.handle(event{kind: passed, dir: d, t: at, line: []byte(line), outSize: len(line) + 1})
	}
	ended := func() (n int) {
		for _, s := range exp.GetSpans() {
			if s.Name == "acp.session" {
				n++
			}
		}
		return n
	}
	feed(c2a, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	for i := range maxSessions + 44 {
		feed(c2a, `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, i+1)
		feed(a2c, `{"jsonrpc":"2.0","id":%d,"result":{"sessionId":"s%d"}}`, i+1, i)
		if i == 0 { // s0 stays in use
			continue
		}
		feed(c2a, `{"jsonrpc":"2.0","id":"p","method":"session/prompt","params":{"sessionId":"s0","prompt":[]}}`)
		feed(a2c, `{"jsonrpc":"2.0","id":"p","result":{"stopReason":"end_turn"}}`)
	}
	assert.Equal(t, 44, ended(), "the sessions past maxSessions, least recently used first")
	_, kept := conn.sessions.get("s0")
	assert.True(t, kept, "the session in use is kept")
	feed(c2a, `{"jsonrpc":"2.0","id":"c","method":"session/close","params":{"sessionId":"s0"}}`)
	feed(a2c, `{"jsonrpc":"2.0","id":"c","result":{}}`)
	assert.Equal(t, 45, ended(), "a closed session ends at once")
	_, kept = conn.sessions.get("s0")
	assert.False(t, kept)
	conn.finish(0)
	assert.Equal(t, maxSessions+44, ended(), "the rest end with the connection")
}

// The trace-context filter's state is bounded as the tap's: sessions/new
// never answered (maxInFlight), sessions (maxSessions).
func TestContextFilterStateIsBounded(t *testing.T) {
	p, _ := memProvider(nil)
	c := p.Context()
	c.Add = true
	apply := func(d acp.Direction, format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		require.NoError(t, c.Apply(filters.NewMessage(d, []byte(line), time.Now(), nil), discard{}))
	}
	for i := range maxInFlight + 100 {
		apply(c2a, `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, i)
	}
	assert.Equal(t, maxInFlight, c.opening.Len())
	for i := range maxSessions + 100 {
		apply(c2a, `{"jsonrpc":"2.0","id":"l%d","method":"session/load","params":{"sessionId":"s%d","cwd":"/p","mcpServers":[]}}`, i, i)
	}
	assert.Len(t, c.sessions.m, maxSessions)
}

type discard struct{}

func (discard) Emit(acp.Direction, []byte) error { return nil }
