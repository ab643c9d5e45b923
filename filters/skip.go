package filters

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Glance is what the chain reads of an agent's line before any filter
// runs: two facts from its bytes alone, read once for all the filters
// (Skipper). Like the filters' own searches, it takes a line to spell
// its keys and plain ASCII values without escapes, as agents write them;
// a line that does not is parsed (a fact is only ever "maybe").
type Glance struct {
	// Notification: the line starts as codex-acp and claude-agent-acp
	// begin every notification and request, so it is not a response (no
	// turn ends with it, no request is answered by it).
	Notification bool
	// Tool: the line may be about a tool call. Every tool_call and
	// tool_call_update (its sessionUpdate value), every toolCallId and a
	// permission request's toolCall contain `"tool`; a line without it is
	// none of these, nor is a text chunk (its kind, read from its head),
	// whatever its text says.
	Tool bool
}

var (
	notificationStart = []byte(`{"jsonrpc":"2.0","method":"`)
	quotedTool        = []byte(`"tool`)
	// updateStart is how every agent begins a session/update, up to its
	// session's id; updateKind follows the id when the update begins with
	// its kind (claude-agent-acp begins its tool updates with _meta).
	updateStart = []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`)
	updateKind  = []byte(`","update":{"sessionUpdate":"`)
)

// NewGlance reads raw's facts.
func NewGlance(raw []byte) Glance {
	g := Glance{Notification: bytes.HasPrefix(raw, notificationStart)}
	g.Tool = !(g.Notification && textChunk(raw)) && rawjson.Contains(raw, quotedTool)
	return g
}

// textChunk reports whether raw begins as a message, thought or user
// chunk of a session/update: a piece of text, about no tool call, whatever
// its text says. It reads the line's head only, so a chunk (most of what an
// agent sends) costs no search of its text.
func textChunk(raw []byte) bool {
	if !bytes.HasPrefix(raw, updateStart) {
		return false
	}
	rest := raw[len(updateStart):]
	k := bytes.IndexByte(rest[:min(len(rest), 256)], '"')
	if k < 0 || bytes.IndexByte(rest[:k], '\\') >= 0 || !bytes.HasPrefix(rest[k:], updateKind) {
		return false
	}
	rest = rest[k+len(updateKind):]
	for _, kind := range textChunkKinds {
		if len(rest) > len(kind) && string(rest[:len(kind)]) == kind && rest[len(kind)] == '"' {
			return true
		}
	}
	return false
}

var textChunkKinds = []string{"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"}

// Skipper is implemented by filters that can tell from a glance at an
// agent's line that Apply would pass it on as it is, emit nothing and
// change nothing of what they keep that a later message depends on.
// Skips runs under the same lock as Apply for that direction. A line
// every filter skips skips the chain (Chain.Skips).
type Skipper interface {
	Skips(g Glance) bool
}

// Skips reports whether every filter of the chain would pass the agent's
// line raw on untouched, and the connection's tracker need not see it
// (a notification): the relay then writes raw as it was read, with no
// message made and no filter called. The filters' figures count it as
// taken in and given out.
func (c *Chain) Skips(d acp.Direction, raw []byte) bool {
	if c == nil || d != acp.AgentToClient || c.later() {
		return false // a v2 connection's filters stand aside per filter (Process)
	}
	g := NewGlance(raw)
	if !g.Notification {
		return false // a response: the tracker reads it
	}
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	for _, f := range c.filters {
		if o, ok := f.(OneWay); ok && !o.Reads(d) {
			continue
		}
		if s, ok := f.(Skipper); !ok || !s.Skips(g) {
			return false
		}
	}
	c.skipped[d].add(len(raw))
	return true
}
