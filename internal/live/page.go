package live

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/internal/view"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// MinInterval is the shortest time between two published data: a
// message that passes the relay reaches an open page within about this
// much, plus the time to send and draw it.
const MinInterval = 250 * time.Millisecond

// takeInterval is how often a page takes what its queue holds.
const takeInterval = 50 * time.Millisecond

// costShare bounds the share of one core the live view takes from a
// busy relay: making the page's data (on a long session, where it takes
// longer, it is made less often), and analysing the records (see rest).
const costShare = 4

// Page is the live page of one session or trace: the records fed to the
// view's analysis as they come, and the latest data made of them.
type Page struct {
	title string
	q     *queue
	model *view.Live
	feed  func(trace.Record) // model.Feed
	// fuse switches the page off if making it panics: the relay goes on,
	// and open pages are told the live view stopped.
	fuse proxy.Fuse

	// watchers are the browsers following the updates: data is made
	// only while there are some (and the last data always); wake asks
	// for it at once when one comes.
	watchers atomic.Int32
	wake     chan struct{}

	mu      sync.Mutex
	data    []byte        // the latest data, encoded for the page
	version int64         // how many were published
	changed chan struct{} // closed when data changes
	ended   bool          // data is the last
	failed  bool          // ended because the page failed, not the session
}

// newPage is the page, titled title, of what q hands over; filters name
// the recording proxy's filters (see view.NewLive).
func newPage(title string, filters []string, q *queue, log *slog.Logger) *Page {
	p := &Page{title: title, q: q, model: view.NewLive(title, filters), changed: make(chan struct{}), wake: make(chan struct{}, 1)}
	p.feed = p.model.Feed
	p.fuse = proxy.Fuse{Name: "live view", Log: log}
	p.publish(view.LiveState{Running: true}, false)
	return p
}

// latest returns the latest data, its version, a channel closed when it
// changes, and whether it is the last.
func (p *Page) latest() ([]byte, int64, <-chan struct{}, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.data, p.version, p.changed, p.ended
}

// watch counts a browser that follows the updates until unwatch is
// called, and has the page make its data at once.
func (p *Page) watch() (unwatch func()) {
	p.watchers.Add(1)
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return func() { p.watchers.Add(-1) }
}

// publish makes the page's data of what was fed so far.
func (p *Page) publish(st view.LiveState, final bool) {
	d := p.model.Data(final)
	d.Live = &st
	b, err := view.EncodeData(d)
	if err != nil {
		return // not encodable: the page keeps what it showed
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.data, p.ended = b, !st.Running
	p.version++
	close(p.changed)
	p.changed = make(chan struct{})
}

// rest keeps a relay's page to its share of the CPU: after working for
// spent, it waits costShare-1 times as long (records that come meanwhile
// wait in the queue, or, past its budget, are left out and counted), so
// that on a relay going at full speed the view takes at most about
// 1/costShare of a core from it. At an agent's pace a batch takes
// microseconds, and the page keeps up with every message. A follower's
// page (a blocking queue: the trace file is the buffer) never rests.
func (p *Page) rest(ctx context.Context, spent time.Duration) {
	if p.q.block || spent < time.Millisecond {
		return
	}
	t := time.NewTimer((costShare - 1) * spent)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// stopIfFailed, when the page's goroutine failed, stops the tap copying
// for it and ends the page's updates with the news that it stopped.
func (p *Page) stopIfFailed() {
	if !p.fuse.Blown() {
		return
	}
	p.q.close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended, p.failed = true, true
	close(p.changed)
	p.changed = make(chan struct{})
}

// hasFailed says the page stopped because making it failed.
func (p *Page) hasFailed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

// run feeds the page until its queue is closed and emptied (then its last
// data is published) or ctx is done. It takes what is queued every
// takeInterval: a relay's tap never wakes it (waking a goroutine from the
// relay's pump would let it run before the pump's reader), only closing
// the queue or a follower does. Data is published at most every
// MinInterval, or costShare times as long as the last took to make, and
// only while a browser watches.
func (p *Page) run(ctx context.Context) {
	defer p.stopIfFailed()
	defer p.fuse.Recover("making the live page")
	var (
		spare    *arena
		st       = view.LiveState{Running: true}
		dirty    bool
		interval = MinInterval
		last     time.Time
		tick     = time.NewTicker(takeInterval)
	)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.q.ready:
		case <-tick.C:
		case <-p.wake:
			dirty, last = true, time.Time{}
		}
		b := p.q.take(spare)
		began := time.Now()
		fed := len(b.arena.recs)
		b.arena.each(p.feed)
		spare = b.arena
		dirty = dirty || fed > 0 || b.missed != st.Missed || b.cut != st.Cut
		st.Missed, st.MissedBytes, st.Cut = b.missed, b.missedB, b.cut
		if b.closed {
			st.Running = false
			p.publish(st, true)
			return
		}
		p.rest(ctx, time.Since(began))
		if !dirty || time.Since(last) < interval || p.watchers.Load() == 0 {
			continue
		}
		began = time.Now()
		p.publish(st, false)
		last, dirty = time.Now(), false
		interval = max(MinInterval, costShare*last.Sub(began))
	}
}
