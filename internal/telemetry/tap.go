package telemetry

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

var timeZero time.Time

func osGetenv(k string) string { return os.Getenv(k) }

// DefaultQueueBytes bounds the bytes of messages the tap holds for its
// goroutine; past it, messages are dropped from the spans (counted).
const DefaultQueueBytes = 16 << 20

// queueLen bounds the number of events held, whatever their size.
const queueLen = 8192

// event is one thing the tap was told, copied.
type event struct {
	kind    eventKind
	dir     acp.Direction
	t       time.Time
	line    []byte   // the line as read (or as the proxy wrote it: added)
	out     [][]byte // what was written for it, when a filter changed it
	outSize int      // the bytes written for it, each line with its '\n'
	held    bool     // passed: a filter held it (it leaves later: released)
	note    filters.Note
	// counted: the updates of session sid (and call, for its output) read
	// in a row that a span only counts (see Passed), before and after the
	// filters, not their lines.
	sid, call string
	counts    [2]acp.Count
}

// afterMessages is how many lines were written for a line passed: what a
// filter wrote, else the line itself; a held line's are counted when it
// leaves (released).
func (ev *event) afterMessages() int64 {
	if ev.held {
		return int64(len(ev.out))
	}
	return int64(max(len(ev.out), 1))
}

type eventKind uint8

const (
	passed eventKind = iota
	added
	released // what left for a held line (line: the line itself, or the line in its place)
	long
	noted
	ended
	counted
)

// Tap is the proxy.Tap that makes a connection's spans. Its methods count
// or copy and queue, never wait; the spans are made on a goroutine of its own,
// which Close ends. The queue is a slice the goroutine takes whole every
// pollInterval, or as soon as it holds wakeEvents events or wakeBytes
// bytes: a pump pays a copy, a lock and an append per message, not a
// goroutine's wake-up (a futex call when the goroutine sleeps, which on a
// quiet connection would be every message).
type Tap struct {
	mu      sync.Mutex
	pending []event // queued, in order
	queued  int64   // bytes in pending
	closed  bool
	wake    chan struct{} // one token: pending has something, or closed
	max     int64
	dropped atomic.Int64
	warned  atomic.Bool
	log     *slog.Logger
	done    chan struct{}
	ends    atomic.Int32
	// off: the span builder failed (a panic) and switched itself off; the
	// tap takes nothing more.
	off atomic.Bool
	// counting is, by direction, the run of counted messages its pump
	// read last, not yet queued: only that pump touches it (Passed, Long
	// and End of that direction), and queues it before anything else it
	// queues.
	counting [2]event
}

// runMax bounds the updates a run counts before it is queued.
const runMax = 256

var _ proxy.Tap = (*Tap)(nil)

// NewTap starts the goroutine that makes spans of conn's messages.
func NewTap(conn *Conn, log *slog.Logger) *Tap {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Tap{wake: make(chan struct{}, 1), max: DefaultQueueBytes, log: log, done: make(chan struct{})}
	go t.run(conn)
	return t
}

// The goroutine's schedule: what it reads costs the spans nothing but
// their delay in reaching the batch processor, which exports every 5 s.
const (
	pollInterval = 25 * time.Millisecond
	wakeEvents   = 1024
	wakeBytes    = 4 << 20
)

// run makes spans of what is queued, a batch at a time, until Close. If
// making them panics, the tap switches itself off with one log line: the
// relay goes on without spans.
func (t *Tap) run(conn *Conn) {
	defer close(t.done)
	defer func() {
		if r := recover(); r != nil {
			t.off.Store(true)
			t.mu.Lock()
			t.pending, t.queued = nil, 0
			t.mu.Unlock()
			t.log.Error("otel: the span builder failed and is switched off; the relay goes on without spans", "panic", fmt.Sprint(r))
		}
	}()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var batch []event
	for {
		select {
		case <-tick.C:
		case <-t.wake:
		}
		t.mu.Lock()
		batch, t.pending = t.pending, batch[:0]
		t.queued = 0
		closed := t.closed
		t.mu.Unlock()
		for i := range batch {
			conn.handle(batch[i])
			batch[i] = event{} // the lines go as soon as they are read
		}
		if closed {
			conn.finish(t.dropped.Load())
			return
		}
	}
}

func outBytes(out [][]byte) (n int) {
	for _, l := range out {
		n += len(l)
	}
	return n
}

// put queues ev unless the queue is full (by bytes or by count; always,
// when must): the tap drops rather than wait.
func (t *Tap) put(ev event, must bool) {
	size := int64(len(ev.line) + outBytes(ev.out))
	t.mu.Lock()
	if t.closed || t.off.Load() {
		t.mu.Unlock()
		return
	}
	if !must && (t.queued+size > t.max || len(t.pending) >= queueLen) {
		t.mu.Unlock()
		t.drop()
		return
	}
	t.pending = append(t.pending, ev)
	t.queued += size
	full := len(t.pending) == wakeEvents || t.queued >= wakeBytes && t.queued-size < wakeBytes
	t.mu.Unlock()
	if full {
		t.signal()
	}
}

// signal wakes the goroutine, unless it is already to wake.
func (t *Tap) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *Tap) drop() {
	t.dropped.Add(1)
	if t.warned.CompareAndSwap(false, true) {
		t.log.Warn("otel: the span builder is behind; messages are left out of the spans (the relay goes on)")
	}
}

func (t *Tap) Passed(p *proxy.Passage) {
	// Most of what an agent sends is text and output, which a span only
	// counts: those are counted here, their lines not copied; so is what a
	// client sends that no span is made of.
	if sid, id, ok := countOnly(p.Dir, p.Line); ok {
		r := t.count(p.Dir, p.Time, sid, id, len(p.Line))
		for _, s := range p.Out {
			r.counts[1].Line(len(s.Line))
		}
		return
	}
	t.flush(p.Dir)
	ev := event{kind: passed, dir: p.Dir, t: p.Time, line: append([]byte(nil), p.Line...), held: p.Held}
	for _, s := range p.Out {
		ev.outSize += len(s.Line) + 1
	}
	if p.Changed() {
		ev.out = make([][]byte, len(p.Out))
		for i, s := range p.Out {
			ev.out[i] = append([]byte(nil), s.Line...)
		}
	}
	t.put(ev, false)
}

// PassedRun implements proxy.RunTap: the lines of a run passed as read,
// so each a span only counts is counted before and after the filters
// alike, with no Passage made for it. A line that begins as the one before
// it, through its kind, is a text chunk of the same session (see
// acp.UpdateHead.Len), counted with no more reading.
func (t *Tap) PassedRun(d acp.Direction, at time.Time, lines [][]byte) {
	var head []byte // the last text chunk's head
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if head != nil && bytes.HasPrefix(l, head) {
			// This chunk and those after it of the same head: counted
			// together.
			n, size := 1, len(l)
			for ; i+1 < len(lines) && bytes.HasPrefix(lines[i+1], head); i++ {
				n, size = n+1, size+len(lines[i+1])
			}
			t.countSame(d, at, n, size)
			continue
		}
		head = nil
		sid, id, ok := countOnly(d, l)
		if !ok {
			t.Passed(&proxy.Passage{Dir: d, Time: at, Line: l, EOL: true, Out: []proxy.Sent{{Line: l, Original: true}}})
			continue
		}
		t.count(d, at, sid, id, len(l)).counts[1].Line(len(l))
		if h, ok := acp.ReadUpdateHead(l); d == acp.AgentToClient && ok && h.TextChunk() {
			head = l[:h.Len]
		}
	}
}

// countSame counts n updates of size bytes in all (without their '\n's),
// read at at, passed as read, of the session and call of the run being
// counted (the caller counted one of them just before), into it and, past
// runMax, the runs after it.
func (t *Tap) countSame(d acp.Direction, at time.Time, n, size int) {
	r := &t.counting[d]
	for n > 0 {
		if r.counts[0].Messages >= runMax {
			sid, call := r.sid, r.call
			t.flush(d)
			*r = event{kind: counted, dir: d, sid: sid, call: call}
		}
		k := min(n, runMax-int(r.counts[0].Messages))
		part := size * k / n // one by one, the lines' sizes are not kept: shared out
		r.t = at
		for c := range r.counts {
			r.counts[c].Messages += int64(k)
			r.counts[c].Bytes += int64(part + k)
		}
		n, size = n-k, size-part
	}
}

// count counts an update of n bytes, read at at, of session sid that a
// span only counts (of call id, when it is a call's output), into the run
// of those before it when they are of the same session and call: the line
// is not copied, and a stream of chunks is one event, queued when the run
// ends. A nil sid is the run's own (the caller knows the line is of the
// run's session and call). The caller counts what was written for it into
// the run returned.
func (t *Tap) count(d acp.Direction, at time.Time, sid []byte, id string, n int) *event {
	r := &t.counting[d]
	same := sid == nil || r.sid == string(sid) && r.call == id
	if r.kind != counted || !same || r.counts[0].Messages >= runMax {
		s, c := string(sid), id
		if sid == nil {
			s, c = r.sid, r.call
		}
		t.flush(d)
		*r = event{kind: counted, dir: d, sid: s, call: c}
	}
	r.t = at
	r.counts[0].Line(n)
	return r
}

// flush queues direction d's run of counted messages (by d's pump).
func (t *Tap) flush(d acp.Direction) {
	if t.counting[d].kind == counted {
		t.put(t.counting[d], false)
		t.counting[d] = event{}
	}
}

func (t *Tap) Added(d acp.Direction, at time.Time, line []byte, _ bool) {
	t.put(event{kind: added, dir: d, t: at, line: append([]byte(nil), line...), outSize: len(line) + 1}, false)
}

// Released counts what left for a held line, after the filters, as a line
// the client gets at p.Left (not one the proxy added): the line itself, or
// the line sent in its place.
func (t *Tap) Released(p *proxy.Passage) {
	t.flush(p.Dir)
	for _, o := range p.Out {
		t.put(event{kind: released, dir: p.Dir, t: p.Left, line: append([]byte(nil), o.Line...), outSize: len(o.Line) + 1}, false)
	}
}

// Long counts a line too long to filter; nothing of it is read.
func (t *Tap) Long(d acp.Direction) proxy.LongLine {
	t.flush(d)
	return &longLine{t: t, d: d}
}

type longLine struct {
	t *Tap
	d acp.Direction
	n int
}

func (l *longLine) Piece(b []byte) { l.n += len(b) }

func (l *longLine) End(at time.Time, eol bool) {
	if eol {
		l.n++
	}
	l.t.put(event{kind: long, dir: l.d, t: at, outSize: l.n}, false)
}

// Note takes a filter's note (the chain's OnNote).
func (t *Tap) Note(n filters.Note) { t.put(event{kind: noted, t: n.Time, note: n}, false) }

// End ends the spans when both directions have ended.
func (t *Tap) End(d acp.Direction) error {
	t.flush(d)
	t.put(event{kind: ended, dir: d, t: time.Now()}, true)
	if t.ends.Add(1) == 2 {
		t.Close()
	}
	return nil
}

// Close ends the goroutine once it has made the spans of what was queued
// (the connection's spans end with it), and waits for it.
func (t *Tap) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.signal()
	<-t.done
}
