package live

import (
	"sync"

	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// recordOverhead is what a queued record costs beside its lines.
const recordOverhead = 128

// queue hands records to a Page's one goroutine. A relay's queue never
// makes its writer wait: past maxBytes, records are left out and counted
// (the relay must not slow down for a view). A follower's queue blocks
// its writer instead (the file keeps what is not read yet).
type queue struct {
	mu       sync.Mutex
	space    sync.Cond // a blocking writer waits for room
	recs     []trace.Record
	bytes    int64
	maxBytes int64
	block    bool
	closed   bool
	missed   int64 // records left out
	missedB  int64 // their bytes
	cut      int64 // long lines kept only in part
	ready    chan struct{}
}

func newQueue(maxBytes int64, block bool) *queue {
	q := &queue{maxBytes: maxBytes, block: block, ready: make(chan struct{}, 1)}
	q.space.L = &q.mu
	return q
}

// put appends rec, of size bytes; a blocking queue waits for room, any
// other leaves rec out when it has none.
func (q *queue) put(rec trace.Record, size int64) {
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
		q.recs = append(q.recs, rec)
		q.bytes += size
	}
	q.mu.Unlock()
	if q.block {
		q.signal() // a follower's reader: the relay's looks by itself (see Page.run)
	}
}

// full reports, without waiting, that a record of size bytes would be
// left out (counting it so): the caller need not copy it. A blocking queue
// is never full.
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
	recs                 []trace.Record
	closed               bool
	missed, missedB, cut int64
}

// take hands over every queued record, and what was left out so far. The
// reader calls it after q.ready.
func (q *queue) take(reuse []trace.Record) batch {
	q.mu.Lock()
	defer q.mu.Unlock()
	b := batch{recs: q.recs, closed: q.closed, missed: q.missed, missedB: q.missedB, cut: q.cut}
	clear(reuse)
	q.recs, q.bytes = reuse[:0], 0
	q.space.Broadcast()
	return b
}
