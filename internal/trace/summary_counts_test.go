package trace

import (
	"bytes"
	"strings"
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

// Replayed without filters, a trace recorded through them is counted as its
// proxy sent it: "after" is the records' "out", the lines a filter held
// and its timer released later included, and each call's too.
func TestSummaryOfARecordingWithoutFiltersIsWhatItsProxySent(t *testing.T) {
	update := func(text string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"ls","content":[{"type":"content","content":{"type":"text","text":"` + text + `"}}]}}}`
	}
	trace := strings.Join([]string{
		`{"t":0,"connection":{"started":"2026-11-27T20:00:00Z","agent":["agent","--flag"],"proxy":"v1","args":["--deltas"]}}`,
		`{"t":0.1,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"session/prompt"}}`,
		`{"t":0.2,"dir":"agent->client","msg":` + update("a") + `,"out":[]}`,
		`{"t":0.3,"dir":"agent->client","msg":` + update("ab") + `,"out":[]}`,
		`{"t":0.4,"dir":"agent->client","out":[` + update("ab") + `]}`,
		`{"t":0.5,"dir":"agent->client","msg":{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}}`,
	}, "\n") + "\n"
	sum := NewSummary(nil)
	require.NoError(t, replayInto(nil, strings.NewReader(trace), nil, sum))
	r := sum.Report()
	assert.True(t, r.AfterAsRecorded)
	assert.Equal(t, int64(3), r.Directions[1].Before.Messages)
	assert.Equal(t, int64(2), r.Directions[1].After.Messages, "the released update and the response")
	require.Len(t, r.ToolCalls, 1)
	assert.Equal(t, int64(2), r.ToolCalls[0].Before.Messages)
	assert.Equal(t, int64(1), r.ToolCalls[0].After.Messages)
	assert.Equal(t, 0.5, r.Seconds)
	require.NotNil(t, r.Recording)
	assert.Equal(t, []string{"--deltas"}, r.Recording.Args)
	assert.Equal(t, []string{"agent", "--flag"}, r.Command)
}
