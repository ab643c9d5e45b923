package trace

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// Summary counts what entered and what left the filter chain, per direction
// and per tool call, for `replay --summary` and the live `--stats`: a tap on
// the relay, and a replay's sink.
type Summary struct {
	mu    sync.Mutex
	chain *filters.Chain
	// before, after the chain, and sent: what the recording proxy sent
	// (a replay's records: their "out", else their line).
	dirs      [2]struct{ before, after, sent acp.Count }
	calls     map[string]*CallCount
	order     int             // calls seen, to list equal ones in order
	span      time.Duration   // the time of the last message (replays)
	recording *ConnectionInfo // from a "connection" record
	sawOut    bool            // a record had "out": the recording proxy's filters changed something
}

// CallCount is what one tool call cost the client, before and after.
type CallCount struct {
	ToolCallID string `json:"toolCallId"`
	// Title is the call's last title as the agent sent it, or, without
	// one, its command.
	Title  string    `json:"title,omitempty"`
	Before acp.Count `json:"before"`
	After  acp.Count `json:"after"`
	sent   acp.Count // what the recording proxy sent (see Summary)
	// Connection numbers the trace's connection the call belongs to,
	// from 1, in a report of several.
	Connection int `json:"connection,omitempty"`
	seen       int
}

// NewSummary counts traffic through chain (nil: no filters).
func NewSummary(chain *filters.Chain) *Summary {
	return &Summary{chain: chain, calls: map[string]*CallCount{}}
}

var _ Sink = (*Summary)(nil)

// Passed counts a received line before the filters, and what they wrote
// for it after.
func (s *Summary) Passed(p *proxy.Passage) {
	call := readCall(p.Dir, p.Line, true)
	s.count(p.Dir, len(p.Line), call, before)
	for _, o := range p.Out {
		if o.Original {
			s.count(p.Dir, len(o.Line), call, after)
		} else {
			s.count(p.Dir, len(o.Line), readCall(p.Dir, o.Line, false), after)
		}
	}
}

// Added counts a line the chain wrote on its own, after the filters.
func (s *Summary) Added(d acp.Direction, _ time.Time, line []byte, _ bool) {
	s.count(d, len(line), readCall(d, line, false), after)
}

// Released counts what left for a held line, after the filters (the line
// was counted before them when it arrived).
func (s *Summary) Released(p *proxy.Passage) {
	for _, o := range p.Out {
		s.count(p.Dir, len(o.Line), readCall(p.Dir, o.Line, false), after)
	}
}

// Long counts a line streamed through unfiltered once it has ended: the
// same before and after.
func (s *Summary) Long(d acp.Direction) proxy.LongLine { return &longCount{s: s, d: d} }

// End does nothing: the figures are read with Report.
func (s *Summary) End(acp.Direction) error { return nil }

// Record notes how the trace was made (a "connection" record), when the
// last line came, and what the recording proxy sent.
func (s *Summary) Record(_ time.Time, rec Record) {
	if rec.Conn != nil {
		s.started(rec.Conn)
		return
	}
	if rec.HasLine || rec.HasOut {
		s.at(rec.T)
	}
	s.countSent(rec)
}

// countSent counts what the recording proxy sent for rec: its "out" when
// a filter changed the line (or the proxy added lines), else its line (a
// held line when it left, from the record of its leaving).
func (s *Summary) countSent(rec Record) {
	switch {
	case rec.HasOut:
		s.mu.Lock()
		s.sawOut = true
		s.mu.Unlock()
		for _, o := range rec.Out {
			s.count(rec.Dir, len(o), readCall(rec.Dir, o, false), sent)
		}
	case rec.Held:
		// Sent later: its own record (Released) counts it then.
	case rec.HasLine:
		s.count(rec.Dir, len(rec.Line), readCall(rec.Dir, rec.Line, false), sent)
	}
}

// longCount counts the pieces of a long line.
type longCount struct {
	s *Summary
	d acp.Direction
	n int
}

func (l *longCount) Piece(b []byte) { l.n += len(b) }
func (l *longCount) End(time.Time, bool) {
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirs[l.d].before.Line(l.n)
	s.dirs[l.d].after.Line(l.n)
}

// stage is where a line is counted: before the filters, after them, or as
// the recording proxy sent it.
type stage int

const (
	before stage = iota
	after
	sent
)

var quotedToolCallID = []byte(`"toolCallId"`)

// call is the tool call a line updates: its id ("" for a line that is
// not a tool call's update) and, when read, its title.
type call struct{ id, title string }

// readCall reads the call a line of direction d updates, with its title
// when withTitle. Most lines name no call: those are passed over at the
// cost of a search, not a parse.
func readCall(d acp.Direction, line []byte, withTitle bool) call {
	if d != acp.AgentToClient || !bytes.Contains(line, quotedToolCallID) {
		return call{}
	}
	u, ok := acp.NewMessage(d, line, time.Time{}).ToolUpdate()
	if !ok {
		return call{}
	}
	c := call{id: u.ID}
	if withTitle {
		c.title = callTitle(u)
	}
	return c
}

// count adds a line of n bytes to a direction's figures, before or after
// the filters, and to its call's.
func (s *Summary) count(d acp.Direction, n int, c call, at stage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := &s.dirs[d]
	[3]*acp.Count{&dir.before, &dir.after, &dir.sent}[at].Line(n)
	if c.id == "" {
		return
	}
	cc := s.calls[c.id]
	if cc == nil {
		s.order++
		cc = &CallCount{ToolCallID: c.id, seen: s.order}
		s.calls[c.id] = cc
	}
	if c.title != "" {
		cc.Title = c.title
	}
	[3]*acp.Count{&cc.Before, &cc.After, &cc.sent}[at].Line(n)
}

// callTitle is what a person knows a tool call by: its title, or the
// command it runs; "" when the update carries neither.
func callTitle(u acp.ToolUpdate) string {
	if t, ok := rawjson.GetString(u.Raw, "title"); ok && strings.TrimSpace(t) != "" {
		return t
	}
	if c, ok := rawjson.GetString(u.RawInput, "command"); ok {
		return c
	}
	if argv, ok := rawjson.Get(u.RawInput, "command"); ok {
		var words []string
		if json.Unmarshal(argv, &words) == nil && len(words) > 0 {
			return strings.Join(words, " ")
		}
	}
	return ""
}

// started notes a "connection" record's object (see ConnectionInfo).
func (s *Summary) started(info []byte) {
	ci, ok := ParseConnection(info)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recording = ci
}

// ParseConnection reads a "connection" record's object (Record.Conn); ok
// is false when it is not one.
func ParseConnection(info []byte) (ci *ConnectionInfo, ok bool) {
	ci = &ConnectionInfo{}
	if json.Unmarshal(info, ci) != nil {
		return nil, false
	}
	return ci, true
}

// at notes the time of a message (a replay's recorded clock).
func (s *Summary) at(t time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.span = max(s.span, t)
}
