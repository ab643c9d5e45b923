package trace

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// oneRun is a proxy run's trace: initialize, one tool call (the id every
// run uses), the end of the turn.
func oneRun(t *testing.T, marker bool, agent string) string {
	var b bytes.Buffer
	r := NewRecorder(&b, time.Time{})
	if marker {
		require.NoError(t, r.Begin(ConnectionInfo{Agent: []string{agent}, Proxy: "test"}))
	}
	at := func(s float64) time.Time { return time.Time{}.Add(time.Duration(s * float64(time.Second))) }
	r.emitted(at(0.1), acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`), true, nil)
	r.emitted(at(0.2), acp.AgentToClient, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"`+agent+`","version":"1"}}}`), true, nil)
	r.emitted(at(0.3), acp.AgentToClient, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"`+agent+` runs ls","kind":"execute","status":"pending"}}}`), true, nil)
	r.emitted(at(0.4), acp.AgentToClient, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}}}`), true, nil)
	require.NoError(t, r.Flush())
	return b.String()
}

// --record appends: a file holding two runs is two connections, each on its
// own chain and clock, with its own agent and calls, whether the runs are
// marked by "connection" records or (older traces) only by initialize.
func TestATraceOfTwoRunsIsTwoConnections(t *testing.T) {
	for _, marked := range []bool{true, false} {
		trace := oneRun(t, marked, "alpha") + oneRun(t, marked, "beta")
		var sums []*Summary
		var out bytes.Buffer
		delivered := NewDelivered(&out, false)
		err := Replay(context.Background(), NewReader(strings.NewReader(trace)), func(n int) Connection {
			assert.Equal(t, len(sums), n)
			chain := filters.NewChain(capabilities.New())
			sums = append(sums, NewSummary(chain))
			return Connection{Chain: chain, Sinks: []Sink{delivered, sums[n]}}
		})
		require.NoError(t, err)
		require.Len(t, sums, 2, "marked %v", marked)
		assert.Equal(t, trace, out.String(), "a replay with no filter is the trace, markers included")

		r := NewReport(sums)
		require.Len(t, r.Connections, 2)
		for i, agent := range []string{"alpha", "beta"} {
			c := r.Connections[i]
			assert.Equal(t, agent+" 1", c.Agent)
			assert.InDelta(t, 0.4, c.Seconds, 1e-9, "each connection has its own clock")
			require.Len(t, c.ToolCalls, 1)
			assert.Equal(t, agent+" runs ls", c.ToolCalls[0].Title)
		}
		require.Len(t, r.ToolCalls, 2, "the same id in two connections is two calls")
		assert.Equal(t, []int{1, 2}, []int{r.ToolCalls[0].Connection, r.ToolCalls[1].Connection})
		assert.Equal(t, int64(8), r.Directions[1].Before.Messages+r.Directions[0].Before.Messages)

		var text bytes.Buffer
		require.NoError(t, r.WriteText(&text))
		assert.Contains(t, text.String(), "connection 1 of 2: agent alpha 1")
		if marked {
			assert.Equal(t, []string{"alpha"}, r.Connections[0].Command, "the connection record names the agent's command")
		}
		assert.Contains(t, text.String(), "\nconnection 2 of 2: agent beta 1")
	}
}

// A trace of one run is one connection, however many records precede its
// initialize.
func TestATraceOfOneRunIsOneConnection(t *testing.T) {
	var n int
	err := Replay(context.Background(), NewReader(strings.NewReader(oneRun(t, true, "alpha"))), func(int) Connection {
		n++
		return Connection{}
	})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}
