package trace

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// countingFilter forwards everything and reports fixed counts of its own.
type countingFilter struct{}

func (countingFilter) Name() string                                  { return "counting" }
func (countingFilter) Apply(*filters.Message, filters.Emitter) error { return nil }
func (countingFilter) Counts() map[string]int64 {
	return map[string]int64{"editsTakenBack": 2, "never": 0}
}

// A filter's own counts reach --stats and replay --summary: those that are not zero.
func TestSummaryReportsTheFiltersOwnCounts(t *testing.T) {
	sum := NewSummary(filters.NewChain(capabilities.New(), countingFilter{}))
	r := sum.Report()
	require.Len(t, r.Filters, 1)
	assert.Equal(t, map[string]int64{"editsTakenBack": 2}, r.Filters[0].Counts)
	var text, js bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Regexp(t, `counting editsTakenBack +2`, text.String())
	assert.NotContains(t, text.String(), "never")
	require.NoError(t, r.WriteJSON(&js))
	assert.Contains(t, js.String(), `"counts": {`)
}

// The summary counts each line before and after the filters, per direction
// and per tool call, and knows a call by its title, or else its command.
func TestSummaryCountsPerDirectionAndPerCall(t *testing.T) {
	update := func(fields string) []byte {
		return []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{` + fields + `}}}`)
	}
	titled := update(`"sessionUpdate":"tool_call","toolCallId":"c1","title":"List files","rawInput":{"command":"ls"}`)
	argv := update(`"sessionUpdate":"tool_call","toolCallId":"c2","title":" ","rawInput":{"command":["git","status"]}`)
	shorter := update(`"sessionUpdate":"tool_call_update","toolCallId":"c2"`)
	prompt := []byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","toolCallId":"not a call"}}`)
	sum := NewSummary(nil)
	at := time.Time{}
	sum.Passed(&proxy.Passage{Dir: acp.AgentToClient, Time: at, Line: titled, EOL: true, Out: []proxy.Sent{{Line: titled, Original: true}}})
	sum.Passed(&proxy.Passage{Dir: acp.AgentToClient, Time: at, Line: argv, EOL: true, Out: []proxy.Sent{{Line: shorter}}})
	sum.Passed(&proxy.Passage{Dir: acp.ClientToAgent, Time: at, Line: prompt, EOL: true}) // dropped
	sum.Added(acp.AgentToClient, at, titled, true)
	long := sum.Long(acp.ClientToAgent)
	long.Piece([]byte("abc"))
	long.Piece([]byte("de"))
	long.End(at, true)

	r := sum.Report()
	n := func(lines ...[]byte) acp.Count {
		var c acp.Count
		for _, l := range lines {
			c.Line(len(l))
		}
		return c
	}
	assert.Equal(t, []DirectionReport{
		{Direction: "client->agent", Before: n(prompt, []byte("abcde")), After: n([]byte("abcde"))},
		{Direction: "agent->client", Before: n(titled, argv), After: n(titled, shorter, titled)},
	}, r.Directions)
	assert.Equal(t, []CallCount{ // largest first
		{ToolCallID: "c2", Title: "git status", Before: n(argv), After: n(shorter), seen: 2},
		{ToolCallID: "c1", Title: "List files", Before: n(titled), After: n(titled, titled), seen: 1},
	}, r.ToolCalls)
}
