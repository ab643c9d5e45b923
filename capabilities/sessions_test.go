package capabilities

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/acp"
)

// TestSessionsStayBounded: what the tracker keeps per session stays
// bounded whatever session ids the peers name. Updates under ids no
// session/new created (subagents') cost it nothing; sessions the client
// opens or loads, any number of them, leave at most maxSessions, the ones
// used last, each with its directory.
func TestSessionsStayBounded(t *testing.T) {
	const n = 100_000
	for _, c := range []struct {
		name  string
		lines func(i int) []*acp.Message // the lines of session i
		kept  int
	}{
		{"tool updates under ids never created", func(i int) []*acp.Message {
			return []*acp.Message{acp.NewMessage(acp.AgentToClient, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sub-%d","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","status":"in_progress","rawInput":{"command":"ls"}}}}`, i), time.Time{})}
		}, 0},
		{"session/new", func(i int) []*acp.Message {
			return []*acp.Message{
				acp.NewMessage(acp.ClientToAgent, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/w/%d","mcpServers":[]}}`, i, i), time.Time{}),
				acp.NewMessage(acp.AgentToClient, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"sessionId":"s-%d"}}`, i, i), time.Time{}),
			}
		}, maxSessions},
		{"session/load of ids never created", func(i int) []*acp.Message {
			return []*acp.Message{
				acp.NewMessage(acp.ClientToAgent, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"session/load","params":{"sessionId":"s-%d","cwd":"/w/%d","mcpServers":[]}}`, i, i, i), time.Time{}),
				acp.NewMessage(acp.AgentToClient, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":null}`, i), time.Time{}),
			}
		}, maxSessions},
	} {
		t.Run(c.name, func(t *testing.T) {
			tracker := New()
			for i := range n {
				for _, m := range c.lines(i) {
					tracker.Observe(m)
				}
			}
			assert.Len(t, tracker.sessions, c.kept)
			assert.Len(t, tracker.opened, c.kept)
			assert.Empty(t, tracker.loading, "no load in flight")
			assert.Zero(t, tracker.requests.Len(), "no request in flight")
			if c.kept > 0 {
				assert.Equal(t, fmt.Sprintf("/w/%d", n-1), tracker.Cwd(fmt.Sprintf("s-%d", n-1)), "the last session is kept")
				assert.Equal(t, "", tracker.Cwd(fmt.Sprintf("s-%d", n-maxSessions-1)), "the sessions before the last maxSessions are forgotten")
			}
		})
	}
}

// TestASessionLoadedAgainIsKeptAsNew: loading a session again makes it the
// newest, so the sessions opened after it do not push it out first.
func TestASessionLoadedAgainIsKeptAsNew(t *testing.T) {
	tracker := New()
	load := func(id int, sid string) {
		tracker.Observe(acp.NewMessage(acp.ClientToAgent, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"session/load","params":{"sessionId":%q,"cwd":"/w/%s","mcpServers":[]}}`, id, sid, sid), time.Time{}))
		tracker.Observe(acp.NewMessage(acp.AgentToClient, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":null}`, id), time.Time{}))
	}
	load(0, "main")
	for i := 1; i < maxSessions; i++ {
		load(i, fmt.Sprint("other-", i))
	}
	load(maxSessions, "main")
	load(maxSessions+1, "one more")
	assert.Equal(t, "/w/main", tracker.Cwd("main"), "loaded again: kept")
	assert.Equal(t, "", tracker.Cwd("other-1"), "the oldest is forgotten")
	assert.Len(t, tracker.sessions, maxSessions)
	assert.Len(t, tracker.opened, maxSessions)
}
