package telemetry

import (
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
	note    filters.Note
}

type eventKind uint8

const (
	passed eventKind = iota
	added
	long
	noted
	ended
)

// Tap is the proxy.Tap that makes a connection's spans. Its methods copy
// and queue, never wait; the spans are made on a goroutine of its own,
// which Close ends.
type Tap struct {
	events  chan event
	queued  atomic.Int64 // bytes in events
	max     int64
	dropped atomic.Int64
	warned  atomic.Bool
	log     *slog.Logger
	done    chan struct{}
	ends    atomic.Int32
	// mu guards closed: a send after Close would panic. Senders share it.
	mu     sync.RWMutex
	closed bool
}

var _ proxy.Tap = (*Tap)(nil)

// NewTap starts the goroutine that makes spans of conn's messages.
func NewTap(conn *Conn, log *slog.Logger) *Tap {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := &Tap{events: make(chan event, queueLen), max: DefaultQueueBytes, log: log, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		for ev := range t.events {
			t.queued.Add(-int64(len(ev.line) + outBytes(ev.out)))
			conn.handle(ev)
		}
		conn.finish(t.dropped.Load())
	}()
	return t
}

func outBytes(out [][]byte) (n int) {
	for _, l := range out {
		n += len(l)
	}
	return n
}

// put queues ev unless the queue is full: the tap drops rather than wait.
func (t *Tap) put(ev event) {
	size := int64(len(ev.line) + outBytes(ev.out))
	if t.queued.Add(size) > t.max {
		t.queued.Add(-size)
		t.drop()
		return
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.closed {
		return
	}
	select {
	case t.events <- ev:
	default:
		t.queued.Add(-size)
		t.drop()
	}
}

func (t *Tap) drop() {
	t.dropped.Add(1)
	if t.warned.CompareAndSwap(false, true) {
		t.log.Warn("otel: the span builder is behind; messages are left out of the spans (the relay goes on)")
	}
}

func (t *Tap) Passed(p *proxy.Passage) {
	ev := event{kind: passed, dir: p.Dir, t: p.Time, line: append([]byte(nil), p.Line...)}
	for _, s := range p.Out {
		ev.outSize += len(s.Line) + 1
	}
	if p.Changed() {
		ev.out = make([][]byte, len(p.Out))
		for i, s := range p.Out {
			ev.out[i] = append([]byte(nil), s.Line...)
		}
	}
	t.put(ev)
}

func (t *Tap) Added(d acp.Direction, at time.Time, line []byte, _ bool) {
	t.put(event{kind: added, dir: d, t: at, line: append([]byte(nil), line...), outSize: len(line) + 1})
}

// Long counts a line too long to filter; nothing of it is read.
func (t *Tap) Long(d acp.Direction) proxy.LongLine { return &longLine{t: t, d: d} }

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
	l.t.put(event{kind: long, dir: l.d, t: at, outSize: l.n})
}

// Note takes a filter's note (the chain's OnNote).
func (t *Tap) Note(n filters.Note) { t.put(event{kind: noted, t: n.Time, note: n}) }

// End ends the spans when both directions have ended.
func (t *Tap) End(d acp.Direction) error {
	t.mu.RLock()
	if !t.closed {
		t.events <- event{kind: ended, dir: d, t: time.Now()} // never dropped: it ends the spans
	}
	t.mu.RUnlock()
	if t.ends.Add(1) == 2 {
		t.Close()
	}
	return nil
}

// Close ends the goroutine once it has made the spans of what was queued
// (the connection's spans end with it), and waits for it.
func (t *Tap) Close() {
	t.mu.Lock()
	if !t.closed {
		t.closed = true
		close(t.events)
	}
	t.mu.Unlock()
	<-t.done
}
