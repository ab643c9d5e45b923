package proxy

import (
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
)

// ReleasePassage is the Passage of l, the release of a held line
// (filters.Line.Held), at left, as the taps are told of it (Tap.Released):
// the line as read, and what left for it, the line itself or, changed, the
// line sent in its place (a copy: a filter may reuse its buffer). A replay
// tells its sinks the same.
func ReleasePassage(l filters.Line, left time.Time) *Passage {
	h := l.Held
	out := Sent{Line: l.Raw, Original: l.Original}
	if !l.Original {
		out.Line = append([]byte(nil), l.Raw...)
	}
	return &Passage{Dir: l.Dir, Time: h.Time, Line: h.Raw, EOL: !h.NoEOL, Held: true, Released: true, Left: left,
		Out: []Sent{out}}
}

// heldOrder tells a direction's taps of its held lines in order: each
// line's Passage (Held) before its release. A line is held by the chain
// under its lock, and told of by the pump after; a timer may release it in
// between. Held lines leave in the order they came, so the n-th release is
// the n-th held line's: one released before its Passage was told waits
// for it. Only held lines take the lock.
type heldOrder struct {
	mu       sync.Mutex
	passed   int        // held lines whose Passage the taps were told
	released int        // held lines released
	early    []*Passage // released before their Passage was told, in order
}

// pass tells the taps of p, a held line's Passage, then of its release if
// that came first.
func (h *heldOrder) pass(taps []*watcher, p *Passage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range taps {
		t.passed(p)
	}
	h.passed++
	if len(h.early) > 0 && h.released-len(h.early) < h.passed {
		e := h.early[0]
		h.early[0] = nil
		h.early = h.early[1:]
		for _, t := range taps {
			t.released(e)
		}
	}
}

// release tells the taps that a held line left (p), once they were told
// of its Passage.
func (h *heldOrder) release(taps []*watcher, p *Passage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released++
	if h.released > h.passed {
		h.early = append(h.early, p)
		return
	}
	for _, t := range taps {
		t.released(p)
	}
}
