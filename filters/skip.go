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
)

// NewGlance reads raw's facts.
func NewGlance(raw []byte) Glance {
	g := Glance{Notification: bytes.HasPrefix(raw, notificationStart)}
	g.Tool = !(g.Notification && textChunk(raw)) && rawjson.Contains(raw, quotedTool)
	return g
}

// textChunk reports whether raw begins as a message, thought or user
// chunk of a session/update (acp.ReadUpdateHead): its text is not searched.
func textChunk(raw []byte) bool {
	h, ok := acp.ReadUpdateHead(raw)
	return ok && h.TextChunk()
}

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
// message made and no filter called, and counts it (Skipped). Only d's
// pump asks, one line after the other.
//
// A filter's answer depends on the glance and on what the filter holds,
// which only Process, Tick and Drain change, under d's lock; each of them
// moves d's generation on. So a text line's answer, once every filter
// has given it, holds for every text line after it until the generation
// moves: those lines cost the glance and one atomic load, no lock.
func (c *Chain) Skips(d acp.Direction, raw []byte) bool {
	if c == nil || d != acp.AgentToClient || c.later() {
		return false // a v2 connection's filters stand aside per filter (Process)
	}
	g := NewGlance(raw)
	if !g.Notification {
		return false // a response: the tracker reads it
	}
	text := !g.Tool
	if text && c.textSkips[d] != 0 && c.textSkips[d] == c.generation[d].Load() {
		return true
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
	if text {
		c.textSkips[d] = c.generation[d].Load()
	}
	return true
}

// Skipped counts n lines of d, of bytes bytes without their '\n's, that
// skipped the chain (Skips): each filter took them in and gave them out
// as they were. The relay counts a run of them at once.
func (c *Chain) Skipped(d acp.Direction, n, bytes int) {
	if c != nil && n > 0 {
		c.skipped[d].addRun(n, bytes)
	}
}

// moved moves direction d's generation on: the filters may hold
// something else now (see Skips). Under d's lock.
func (c *Chain) moved(d acp.Direction) { c.generation[d].Add(1) }
