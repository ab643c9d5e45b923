package live

import (
	"context"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

// MinInterval is the shortest time between two published data: a
// message that passes the relay reaches an open page within about this
// much, plus the time to send and draw it.
const MinInterval = 250 * time.Millisecond

// costShare bounds the share of one core that making the page's data
// takes: on a long session, where making it takes longer, it is made
// less often.
const costShare = 4

// Page is the live page of one session or trace: the records fed to the
// view's analysis as they come, and the latest data made of them.
type Page struct {
	title string
	q     *queue
	model *view.Live

	mu      sync.Mutex
	data    []byte        // the latest data, encoded for the page
	version int64         // how many were published
	changed chan struct{} // closed when data changes
	ended   bool          // data is the last
}

// NewPage is the page, titled title, of what q hands over; filters name
// the recording proxy's filters (see view.NewLive).
func newPage(title string, filters []string, q *queue) *Page {
	p := &Page{title: title, q: q, model: view.NewLive(title, filters), changed: make(chan struct{})}
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

// run feeds the page until its queue is closed and emptied (then its last
// data is published) or ctx is done. Data is published at most every
// MinInterval, or costShare times as long as the last took to make.
func (p *Page) run(ctx context.Context) {
	var (
		reuse    []trace.Record
		st       = view.LiveState{Running: true}
		dirty    bool
		interval = MinInterval
		last     time.Time
		timer    = time.NewTimer(time.Hour)
	)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.q.ready:
		case <-timer.C:
		}
		b := p.q.take(reuse)
		for _, rec := range b.recs {
			p.model.Feed(rec)
		}
		reuse = b.recs
		dirty = dirty || len(b.recs) > 0 || b.missed != st.Missed || b.cut != st.Cut
		st.Missed, st.MissedBytes, st.Cut = b.missed, b.missedB, b.cut
		if b.closed {
			st.Running = false
			p.publish(st, true)
			return
		}
		if !dirty {
			continue
		}
		if wait := interval - time.Since(last); wait > 0 {
			timer.Reset(wait)
			continue
		}
		began := time.Now()
		p.publish(st, false)
		last, dirty = time.Now(), false
		interval = max(MinInterval, costShare*last.Sub(began))
	}
}
