package filters

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
)

// toolsOnly acts only on lines about a tool call, and skips the rest.
type toolsOnly struct{ applied int }

func (*toolsOnly) Name() string                    { return "tools-only" }
func (*toolsOnly) Skips(g Glance) bool             { return !g.Tool }
func (f *toolsOnly) Apply(*Message, Emitter) error { f.applied++; return nil }

const (
	chunkLine = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"the tests pass"}}}}`
	toolLine  = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}`
	answer    = `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`
)

// What the glance reads of a line: whether it starts as a notification, and
// whether it may be about a tool call.
func TestGlance(t *testing.T) {
	for _, c := range []struct {
		line               string
		notification, tool bool
	}{
		{chunkLine, true, false},
		// A text chunk is about no tool call, whatever its text says: its
		// kind is read from its head, and its text is not searched.
		{strings.Replace(chunkLine, "the tests", `the \"tool\"`, 1), true, false},
		{strings.Replace(chunkLine, "agent_message_chunk", "agent_thought_chunk", 1), true, false},
		{strings.Replace(chunkLine, `"s"`, `"s\"tool"`, 1), true, true},
		// Elsewhere a quoted word is only a maybe: the glance does not
		// tell a string's escaped quote from a key's.
		{strings.Replace(strings.Replace(chunkLine, "the tests", `the \"tool\"`, 1), "agent_message_chunk", "plan", 1), true, true},
		{strings.Replace(strings.Replace(chunkLine, "the tests", `the \"tool\"`, 1), "agent_message_chunk", "agent_message_chunks", 1), true, true},
		{strings.Replace(strings.Replace(chunkLine, "the tests", `the \"tool\"`, 1), "session/update", "session/updates", 1), true, true},
		{toolLine, true, true},
		{answer, false, false},
		{`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"toolCall":{}}}`, false, true},
	} {
		g := NewGlance([]byte(c.line))
		assert.Equal(t, c.notification, g.Notification, c.line)
		assert.Equal(t, c.tool, g.Tool, c.line)
	}
}

// A line skips the chain only when every filter that reads its direction
// skips it, only from the agent, only as a notification; the filters'
// figures count it as taken in and given out.
func TestALineSkipsTheChainOnlyWhenEveryFilterSkipsIt(t *testing.T) {
	f := &toolsOnly{}
	c := NewChain(capabilities.New(), f)
	assert.True(t, c.Skips(acp.AgentToClient, []byte(chunkLine)))
	assert.False(t, c.Skips(acp.AgentToClient, []byte(toolLine)))
	assert.False(t, c.Skips(acp.AgentToClient, []byte(answer)), "a response: the tracker reads it")
	assert.False(t, c.Skips(acp.ClientToAgent, []byte(chunkLine)), "the client's lines are not glanced at")
	assert.False(t, NewChain(capabilities.New(), f, Func{FilterName: "f"}).Skips(acp.AgentToClient, []byte(chunkLine)),
		"a filter that cannot say reads every line")
	assert.Zero(t, f.applied)
	c.Skipped(acp.AgentToClient, 1, len(chunkLine))
	figures := c.Stats()[0]
	want := acp.Count{Messages: 1, Bytes: int64(len(chunkLine)) + 1}
	assert.Equal(t, want, figures.In[acp.AgentToClient])
	assert.Equal(t, want, figures.Out[acp.AgentToClient])
}

// holdsUntilTick holds each line about a tool call until its next Tick, and
// skips a line only while it holds nothing.
type holdsUntilTick struct{ held []byte }

func (*holdsUntilTick) Name() string                         { return "holds-until-tick" }
func (f *holdsUntilTick) Skips(g Glance) bool                { return !g.Tool && f.held == nil }
func (f *holdsUntilTick) Drain(d acp.Direction, out Emitter) { f.Tick(d, time.Time{}, out) }
func (f *holdsUntilTick) Apply(m *Message, out Emitter) error {
	if strings.Contains(string(m.Raw), `"tool`) {
		f.held = append([]byte(nil), m.Raw...)
		return Drop
	}
	return out.Emit(m.Dir, m.Raw)
}
func (f *holdsUntilTick) Tick(d acp.Direction, _ time.Time, out Emitter) time.Time {
	if f.held != nil {
		_ = out.Emit(d, f.held)
		f.held = nil
	}
	return time.Time{}
}

// A text line's answer is asked again whenever the filters may hold
// something else (they ran on a line, a tick or a drain): a chunk never
// skips past a line a filter took to hold, however many chunks skipped
// before it.
func TestATextLineSkipsOnlyWhileNoFilterHasRunSinceTheAnswer(t *testing.T) {
	f := &holdsUntilTick{}
	c := NewChain(capabilities.New(), f)
	sink := func(Line) error { return nil }
	require.NoError(t, c.Process(NewMessage(acp.AgentToClient, []byte(chunkLine), time.Time{}, nil), sink))
	assert.True(t, c.Skips(acp.AgentToClient, []byte(chunkLine)))
	assert.True(t, c.Skips(acp.AgentToClient, []byte(chunkLine)))
	require.NoError(t, c.Process(NewMessage(acp.AgentToClient, []byte(toolLine), time.Time{}, nil), sink))
	assert.False(t, c.Skips(acp.AgentToClient, []byte(chunkLine)), "the filter holds a line since Process")
	assert.False(t, c.Skips(acp.AgentToClient, []byte(chunkLine)))
	_, err := c.Tick(acp.AgentToClient, time.Time{}, sink)
	require.NoError(t, err)
	assert.True(t, c.Skips(acp.AgentToClient, []byte(chunkLine)), "the tick let it go")
	require.NoError(t, c.Process(NewMessage(acp.AgentToClient, []byte(toolLine), time.Time{}, nil), sink))
	assert.False(t, c.Skips(acp.AgentToClient, []byte(chunkLine)))
	require.NoError(t, c.Drain(acp.AgentToClient, time.Time{}, sink))
	assert.True(t, c.Skips(acp.AgentToClient, []byte(chunkLine)), "the drain let it go")
}
