package filters

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
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
	// Line is the line itself, for a filter that decides by a search of
	// its own (it pays for the search; it keeps nothing of it). Nil for a
	// text chunk asked of for a run (Chain.SkipsChunks).
	Line []byte
}

var quotedTool = []byte(`"tool`)

// NewGlance reads raw's facts.
func NewGlance(raw []byte) Glance {
	g := Glance{Notification: acp.BeginsWithMethod(raw), Line: raw}
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

// ClientSkipper is implemented by filters that can tell from the method a
// client's line begins with (acp.ReadMethodHead) that Apply would pass it
// on as it is, emit nothing and change nothing of what they keep.
// SkipsClient runs under the same lock as Apply for that direction.
type ClientSkipper interface {
	SkipsClient(method []byte) bool
}

// Skips reports whether every filter of the chain would pass line raw on
// untouched, and the connection's tracker need not see it: an agent's
// notification every filter skips (Skipper), or a client's line that
// begins with a method the tracker does not follow and every filter skips
// (ClientSkipper). The relay then writes raw as it was read, with no
// message made and no filter called. The filters' figures count it as
// taken in and given out.
func (c *Chain) Skips(d acp.Direction, raw []byte) bool {
	if d == acp.ClientToAgent {
		return c.skipsClient(raw)
	}
	if !c.skipping(d) {
		return false
	}
	g := NewGlance(raw)
	if !g.Notification {
		return false // a response: the tracker reads it
	}
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	if !c.allSkip(d, g) {
		return false
	}
	c.skipped[d].add(len(raw))
	return true
}

// skipsClient is Skips for a client's line.
func (c *Chain) skipsClient(raw []byte) bool {
	if c == nil || c.later() {
		return false
	}
	method, ok := acp.ReadMethodHead(raw)
	if !ok || capabilities.Follows(string(method)) {
		return false
	}
	d := acp.ClientToAgent
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	if !c.every(d, func(f Filter) bool {
		s, ok := f.(ClientSkipper)
		return ok && s.SkipsClient(method)
	}) {
		return false
	}
	c.skipped[d].add(len(raw))
	return true
}

// SkipsChunks is Skips for text chunks (acp.UpdateHead.TextChunk) the
// relay has read and not passed on: whether every filter would pass each
// on untouched, asked once for all of them; the relay counts those it
// passes (Skipped). The filters' answer to a chunk's glance depends only on
// what they hold, which no chunk changes, so it holds for each chunk until
// a line goes through the chain. Asked after the chunks arrived, it is the
// answer each would have had on arriving: a message of the other direction
// that changes what a filter holds for d meanwhile is as if it came after
// them.
func (c *Chain) SkipsChunks(d acp.Direction) bool {
	if !c.skipping(d) {
		return false
	}
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	return c.allSkip(d, Glance{Notification: true})
}

// Skipped counts n lines of d, of bytes bytes without their '\n's, that
// skipped the chain (SkipsChunks): each filter took them in and gave them
// out as they were.
func (c *Chain) Skipped(d acp.Direction, n, bytes int) {
	if c != nil && n > 0 {
		c.skipped[d].addRun(n, bytes)
	}
}

// skipping reports whether a line of d may skip the chain at all: only an
// agent's, and not on a connection of a later protocol version, whose
// filters stand aside per filter (Process).
func (c *Chain) skipping(d acp.Direction) bool {
	return c != nil && d == acp.AgentToClient && !c.later()
}

// allSkip reports whether every filter that reads d skips a line of glance
// g. Under d's lock.
func (c *Chain) allSkip(d acp.Direction, g Glance) bool {
	return c.every(d, func(f Filter) bool {
		s, ok := f.(Skipper)
		return ok && s.Skips(g)
	})
}

// every reports whether skips holds for every filter that reads d.
func (c *Chain) every(d acp.Direction, skips func(Filter) bool) bool {
	for _, f := range c.filters {
		if o, ok := f.(OneWay); ok && !o.Reads(d) {
			continue
		}
		if !skips(f) {
			return false
		}
	}
	return true
}
