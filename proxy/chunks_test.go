package proxy

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// countedWrites counts the writes made to it.
type countedWrites struct {
	bytes.Buffer
	writes int
}

func (w *countedWrites) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// chunkStream is an agent's stream of text chunks of two sessions, of the
// three text kinds, with a plan and a tool update among them, and chunks
// whose heads are escaped (read one by one).
func chunkStream() (lines []string, tools int) {
	chunk := func(sid, kind, text string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid + `","update":{"sessionUpdate":"` + kind + `","content":{"type":"text","text":"` + text + `"}}}}`
	}
	for i := range 40 {
		lines = append(lines,
			chunk("s1", "agent_message_chunk", "a \\\"tool_call\\\" in text"),
			chunk("s1", "agent_message_chunk", "more"),
			chunk("s2", "agent_thought_chunk", "thinking"),
			chunk("s1", "user_message_chunk", "you said"))
		switch i % 4 {
		case 1:
			lines = append(lines, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[]}}}`)
		case 2:
			lines = append(lines, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}`)
			tools++
		case 3:
			lines = append(lines, chunk(`s\"3`, "agent_message_chunk", "escaped id"))
		}
	}
	return lines, tools
}

// Text chunks that arrive together pass in one write, whatever their
// session and kind, without a filter called for any; the filters' figures
// count each as taken in and given out; the taps are told of each. The
// lines the chain reads still go through it, in order.
func TestTextChunksThatArriveTogetherPassInOneWrite(t *testing.T) {
	lines, tools := chunkStream()
	in := strings.Join(lines, "\n") + "\n"
	f := &rewritesTools{}
	asked := &countsSkips{}
	tap := &eventTap{}
	chain := filters.NewChain(capabilities.New(), f, asked)
	relay := &Relay{Chain: chain, Taps: []Tap{tap}}
	var toClient countedWrites
	conn := relay.Open(&bytes.Buffer{}, &toClient)
	require.NoError(t, conn.Pump(acp.AgentToClient, strings.NewReader(in)))

	want := strings.ReplaceAll(in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}`,
		`{"jsonrpc":"2.0","method":"rewritten"}`)
	assert.Equal(t, want, toClient.String())
	assert.Len(t, f.applied, tools, "only the tool updates went through the filter")
	// One write per run between two lines the chain read (a tool update
	// ends a run; a plan or an escaped head does not), and the last flush.
	assert.LessOrEqual(t, toClient.writes, 2*tools+2)
	// Asked once for each run of text chunks, and of each other line.
	assert.Less(t, asked.calls, len(lines)/2, "a filter was asked of each chunk")
	var passed int
	for _, e := range tap.events {
		if strings.HasPrefix(e, "passed ") {
			passed++
		}
	}
	assert.Equal(t, len(lines), passed, "the taps are told of every line")
	figures := chain.Stats()[0]
	assert.Equal(t, int64(len(lines)), figures.In[acp.AgentToClient].Messages)
	assert.Equal(t, int64(len(in)), figures.In[acp.AgentToClient].Bytes)
}

// However the stream is cut into reads, every line leaves once, in order,
// and only the lines about a tool call reach the filter.
func TestTextChunksCutAnywhere(t *testing.T) {
	lines, tools := chunkStream()
	in := strings.Join(lines, "\n") + "\n"
	want := strings.ReplaceAll(in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}`,
		`{"jsonrpc":"2.0","method":"rewritten"}`)
	rng := rand.New(rand.NewPCG(1, 2))
	readers := map[string]func() io.Reader{
		"one byte at a time": func() io.Reader { return iotest.OneByteReader(strings.NewReader(in)) },
		"half a buffer":      func() io.Reader { return iotest.HalfReader(strings.NewReader(in)) },
		"random pieces":      func() io.Reader { return &choppyReader{b: []byte(in), rng: rng, max: 600} },
	}
	for name, r := range readers {
		t.Run(name, func(t *testing.T) {
			f := &holdsTools{}
			g := &rewritesTools{}
			relay := &Relay{Chain: filters.NewChain(capabilities.New(), g, f)}
			var toClient bytes.Buffer
			conn := relay.Open(&bytes.Buffer{}, &toClient)
			require.NoError(t, conn.Pump(acp.AgentToClient, r()))
			assert.Equal(t, want, toClient.String())
			assert.Len(t, g.applied, tools)
		})
	}
}

// countsSkips skips every line and counts how often it is asked.
type countsSkips struct{ calls int }

func (*countsSkips) Name() string                                  { return "counts-skips" }
func (c *countsSkips) Skips(filters.Glance) bool                   { c.calls++; return true }
func (*countsSkips) Apply(*filters.Message, filters.Emitter) error { return nil }
