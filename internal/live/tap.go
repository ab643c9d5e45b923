package live

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// DefaultBudget bounds what a relay's live view holds that its page has
// not read yet; past it, the relay goes on and the page says what it
// missed.
const DefaultBudget = 8 << 20

// longHead is how much of a line too long to filter the live view keeps.
const longHead = 64 << 10

// Tap is a relay's tap (proxy.Tap) that hands each line, and what the
// filters wrote for it, to a live page. Its calls copy the line into a
// queue and return: they never wait for the page, let alone a browser.
type Tap struct {
	start time.Time
	q     *queue

	mu    sync.Mutex
	ended [2]bool
}

var _ proxy.Tap = (*Tap)(nil)

// NewTap watches a relay that started at start (times are relative to
// it, as in a trace), holding at most budget bytes the page has not read.
// info begins the session, as its "connection" record begins a trace.
func NewTap(start time.Time, info trace.ConnectionInfo, budget int64) *Tap {
	t := &Tap{start: start, q: newQueue(budget, false)}
	if b, err := json.Marshal(info); err == nil {
		t.q.put(trace.Record{Conn: b}, nil, int64(len(b)))
	}
	return t
}

// at is when, since the start (see recordedTime).
func (t *Tap) at(when time.Time) time.Duration { return when.Sub(t.start) }

// Passed queues a line as read, and what was written for it when a filter
// changed it: it copies them into the queue's buffer, and allocates
// nothing once that has grown to the traffic.
// When the queue is full the line is only counted, not copied.
func (t *Tap) Passed(p *proxy.Passage) {
	size := int64(len(p.Line))
	changed := p.Changed()
	if changed {
		for _, o := range p.Out {
			size += int64(len(o.Line))
		}
	}
	if t.q.full(size) {
		return
	}
	rec := trace.Record{T: t.at(p.Time), Dir: p.Dir, Line: p.Line, HasLine: true, EOL: p.EOL, JSON: p.Valid, HasOut: changed, Held: p.Held}
	var out []proxy.Sent
	if changed {
		out = p.Out
	}
	t.q.put(rec, out, size)
}

// Added queues a line the proxy wrote on its own.
func (t *Tap) Added(d acp.Direction, when time.Time, line []byte, _ bool) {
	if t.q.full(int64(len(line))) {
		return
	}
	out := [1]proxy.Sent{{Line: line}}
	t.q.put(trace.Record{T: t.at(when), Dir: d, HasOut: true}, out[:], int64(len(line)))
}

// Note queues a decision a filter took that a trace keeps (filters.Note.Audit: the policy's),
// as a "note" record.
func (t *Tap) Note(n filters.Note) {
	size := int64(len(n.Event) + len(n.Detail))
	if !n.Audit || t.q.full(size) {
		return
	}
	t.q.put(trace.Record{T: t.at(n.Time), Dir: n.Dir, Note: &n}, nil, size)
}

// Released queues a held line leaving, as its trace record has it: with
// what was sent in its place when it left changed.
func (t *Tap) Released(p *proxy.Passage) {
	size := int64(len(p.Line))
	changed := p.Changed()
	var out []proxy.Sent
	if changed {
		out = p.Out
		for _, o := range out {
			size += int64(len(o.Line))
		}
	}
	if t.q.full(size) {
		return
	}
	t.q.put(trace.Record{T: t.at(p.Left), Dir: p.Dir, Line: p.Line, HasLine: true, EOL: p.EOL, HasOut: changed,
		Released: true, HeldSince: t.at(p.Time)}, out, size)
}

// Long follows a line too long to filter: the page gets its first bytes.
func (t *Tap) Long(d acp.Direction) proxy.LongLine { return &longLine{t: t, d: d} }

// End notes that direction d's input ended; once both have, the session
// has, and the page shows its last data.
func (t *Tap) End(d acp.Direction) error {
	t.mu.Lock()
	t.ended[d] = true
	both := t.ended[0] && t.ended[1]
	t.mu.Unlock()
	if both {
		t.q.close()
	}
	return nil
}

// longLine keeps the first longHead bytes of a line too long to filter.
type longLine struct {
	t    *Tap
	d    acp.Direction
	head []byte
}

func (l *longLine) Piece(b []byte) {
	if n := longHead - len(l.head); n > 0 {
		l.head = append(l.head, b[:min(n, len(b))]...)
	}
}

func (l *longLine) End(when time.Time, eol bool) {
	l.t.q.noteCut()
	l.t.q.put(trace.Record{T: l.t.at(when), Dir: l.d, Line: l.head, HasLine: true, EOL: eol}, nil, int64(len(l.head)))
}
