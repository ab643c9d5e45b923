package filters

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

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
	assert.False(t, c.Skips(acp.ClientToAgent, []byte(chunkLine)), "a client's line skips only when every filter says so of its method")
	assert.False(t, NewChain(capabilities.New(), f, Func{FilterName: "f"}).Skips(acp.AgentToClient, []byte(chunkLine)),
		"a filter that cannot say reads every line")
	assert.Zero(t, f.applied)
	skippedOnce(t, c, acp.AgentToClient, chunkLine)
}

// skippedOnce checks that the first filter's figures count line, of
// direction d, once in and once out, as a line that skipped the chain.
func skippedOnce(t *testing.T, c *Chain, d acp.Direction, line string) {
	t.Helper()
	figures := c.Stats()[0]
	want := acp.Count{Messages: 1, Bytes: int64(len(line)) + 1}
	assert.Equal(t, want, figures.In[d])
	assert.Equal(t, want, figures.Out[d])
}

// promptsOnly reads a client's prompts only.
type promptsOnly struct{ toolsOnly }

func (*promptsOnly) SkipsClient(method []byte) bool { return string(method) != "session/prompt" }

// A client's line skips the chain when it begins with its method, the
// tracker does not follow that method and every filter skips it by its
// method (ClientSkipper).
func TestAClientLineSkipsTheChainByItsMethod(t *testing.T) {
	f := &promptsOnly{}
	c := NewChain(capabilities.New(), f)
	cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`
	assert.True(t, c.Skips(acp.ClientToAgent, []byte(cancel)))
	for line, why := range map[string]string{
		`{"jsonrpc":"2.0","method":"session/prompt","id":2,"params":{"sessionId":"s","prompt":[]}}`: "the filter reads prompts",
		`{"jsonrpc":"2.0","method":"session/new","id":1,"params":{"cwd":"/w","mcpServers":[]}}`:     "the tracker follows session/new",
		`{"jsonrpc":"2.0","id":4,"method":"session/cancel"}`:                                        "its method is not read from its head",
		`{"jsonrpc":"2.0","id":4,"result":{"outcome":{"outcome":"cancelled"}}}`:                     "a response",
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"method":"session/prompt"}}`:          "a second method, maybe the one a parse reads",
	} {
		assert.False(t, c.Skips(acp.ClientToAgent, []byte(line)), why)
	}
	assert.False(t, NewChain(capabilities.New(), f, &toolsOnly{}).Skips(acp.ClientToAgent, []byte(cancel)),
		"a filter that cannot say reads every client line")
	assert.Zero(t, f.applied)
	skippedOnce(t, c, acp.ClientToAgent, cancel)
}
