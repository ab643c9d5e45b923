package live

import (
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// recordOverhead is what a queued record costs beside its lines.
const recordOverhead = 128

// queue hands records to a Page's one goroutine. A relay's queue never
// makes its writer wait: past maxBytes, records are left out and counted
// (the relay must not slow down for a view). A follower's queue blocks
// its writer instead (the file keeps what is not read yet).
//
// Records are copied into a buffer (an arena) that the reader hands back
// once it has taken its contents out: the writer, a relay's pump, then
// allocates nothing once the buffers have grown to the traffic, and so
// adds no garbage collection work to the relay.
type queue struct {
	mu       sync.Mutex
	space    sync.Cond // a blocking writer waits for room
	arena    *arena
	bytes    int64
	maxBytes int64
	block    bool
	closed   bool
	missed   int64 // records left out
	missedB  int64 // their bytes
	cut      int64 // long lines kept only in part
	ready    chan struct{}
}

// arena holds queued records, their bytes in one buffer.
type arena struct {
	recs  []queued
	spans []span // the lines of the records' "out"
	buf   []byte
}

// queued is one record: rec without its bytes (Line, Out, Conn), which
// are spans of the arena's buffer.
type queued struct {
	rec        trace.Record
	line, conn span
	outs       [2]int // rec's "out": spans[outs[0]:outs[1]]
}

type span struct{ from, to int }

// add copies rec (and out, when rec.HasOut: its "out" lines, in place of
// rec.Out) into a.
func (a *arena) add(rec trace.Record, out []proxy.Sent) {
	q := queued{rec: rec, line: a.copy(rec.Line), conn: a.copy(rec.Conn)}
	q.outs[0] = len(a.spans)
	for _, o := range out {
		a.spans = append(a.spans, a.copy(o.Line))
	}
	for _, o := range rec.Out {
		a.spans = append(a.spans, a.copy(o))
	}
	q.outs[1] = len(a.spans)
	q.rec.Line, q.rec.Out, q.rec.Conn = nil, nil, nil
	a.recs = append(a.recs, q)
}

func (a *arena) copy(b []byte) span {
	s := span{len(a.buf), len(a.buf) + len(b)}
	a.buf = append(a.buf, b...)
	return s
}

// each calls fn with each record, its bytes copied out of the arena (fn
// may keep them), then empties the arena for reuse.
func (a *arena) each(fn func(trace.Record)) {
	bytes := func(s span) []byte {
		if s.to == s.from {
			return nil
		}
		return append([]byte(nil), a.buf[s.from:s.to]...)
	}
	for _, q := range a.recs {
		rec := q.rec
		rec.T = recordedTime(rec.T)
		rec.Line, rec.Conn = bytes(q.line), bytes(q.conn)
		if rec.HasLine && rec.Line == nil {
			rec.Line = []byte{}
		}
		if rec.HasOut {
			rec.Out = make([][]byte, 0, q.outs[1]-q.outs[0])
			for _, s := range a.spans[q.outs[0]:q.outs[1]] {
				rec.Out = append(rec.Out, bytes(s))
			}
		}
		fn(rec)
	}
	clear(a.recs)
	a.recs, a.spans, a.buf = a.recs[:0], a.spans[:0], a.buf[:0]
}

func newQueue(maxBytes int64, block bool) *queue {
	q := &queue{maxBytes: maxBytes, block: block, arena: &arena{}, ready: make(chan struct{}, 1)}
	q.space.L = &q.mu
	return q
}

// put copies rec, of size bytes (out, when given, is its "out"), into the
// queue; a blocking queue waits for room, any other leaves rec out when it
// has none.
func (q *queue) put(rec trace.Record, out []proxy.Sent, size int64) {
	size += recordOverhead
	q.mu.Lock()
	for q.block && !q.closed && q.bytes > 0 && q.bytes+size > q.maxBytes {
		q.space.Wait()
	}
	switch {
	case q.closed:
	case q.bytes+size > q.maxBytes && q.bytes > 0:
		q.missed++
		q.missedB += size - recordOverhead
	default:
		q.arena.add(rec, out)
		q.bytes += size
	}
	q.mu.Unlock()
	if q.block {
		q.signal() // a follower's reader: the relay's looks by itself (see Page.run)
	}
}

// full reports, without waiting, that a record of size bytes would be
// left out (counting it so): the caller need not prepare it. A blocking
// queue is never full.
func (q *queue) full(size int64) bool {
	size += recordOverhead
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.block || q.bytes == 0 || q.bytes+size <= q.maxBytes {
		return false
	}
	if !q.closed {
		q.missed++
		q.missedB += size - recordOverhead
	}
	return true
}

// signal wakes the reader, without ever waiting.
func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// close says no more records will come.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.space.Broadcast()
	q.mu.Unlock()
	q.signal()
}

// noteCut counts a line kept only in part.
func (q *queue) noteCut() {
	q.mu.Lock()
	q.cut++
	q.mu.Unlock()
}

// batch is what a take hands over.
type batch struct {
	arena                *arena
	closed               bool
	missed, missedB, cut int64
}

// take hands over every queued record, in spare (an arena a take handed
// over before, emptied, or nil), and what was left out so far.
func (q *queue) take(spare *arena) batch {
	if spare == nil {
		spare = &arena{}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	b := batch{arena: q.arena, closed: q.closed, missed: q.missed, missedB: q.missedB, cut: q.cut}
	q.arena, q.bytes = spare, 0
	q.space.Broadcast()
	return b
}

// recordedTime is d as a trace records it ("t", seconds to six decimals)
// and a reader reads it back, so that a live page shows the times a page
// of the trace shows; the page's goroutine pays for it, not the relay.
func recordedTime(d time.Duration) time.Duration {
	var buf [32]byte
	secs, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], d.Seconds(), 'f', 6, 64)), 64)
	return time.Duration(math.Round(secs*1e6)) * time.Microsecond
}
