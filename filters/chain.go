package filters

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
)

// Chain runs filters in order. The zero Chain and a nil *Chain forward
// everything unchanged.
type Chain struct {
	filters []Filter
	caps    *capabilities.Negotiated
	// OnError is told of every filter failure (the message was then
	// forwarded as the filter received it). Nil: failures are ignored.
	OnError func(d acp.Direction, filter string, err error)
	// Disk is what the filters read the filesystem through (see Disk);
	// nil: the OS.
	Disk Disk
	// OnNote is told what the filters did, as they note it (see Note), on
	// the pump or timer that runs them: it must not block. Nil: notes are
	// not made.
	OnNote func(Note)
	mu     [2]sync.Mutex // serialises Process, Tick and Drain per direction
	counts []filterCounts
	// skipped counts the lines that skipped the chain (Skips): each
	// filter took them in and gave them out as they were.
	skipped [2]counter
	last    [2]lastStage // per direction, under mu
	// Per direction, under mu: each filter's stage, and the message a
	// Tick or Drain hands them, reused from line to line (a stage lives
	// while its filter runs on one line; they cost 6 allocations a line).
	stages [2][]stage
	timed  [2]Message
}

// NewChain returns a chain of fs, run in the given order, reading and
// recording negotiated state in caps.
func NewChain(caps *capabilities.Negotiated, fs ...Filter) *Chain {
	return &Chain{filters: fs, caps: caps, counts: make([]filterCounts, len(fs)),
		stages: [2][]stage{make([]stage, len(fs)), make([]stage, len(fs))}}
}

// Len is the number of filters; a chain of none is a byte-exact relay.
func (c *Chain) Len() int {
	if c == nil {
		return 0
	}
	return len(c.filters)
}

// Runs reports whether a filter of the chain reads direction d (see
// OneWay). The relay runs the chain for such a direction; the lines of
// the other it passes as it does without filters, the chain only
// observing them (Observe).
func (c *Chain) Runs(d acp.Direction) bool {
	if c == nil {
		return false
	}
	for _, f := range c.filters {
		if o, ok := f.(OneWay); !ok || o.Reads(d) {
			return true
		}
	}
	return false
}

// Observe records what a message of a direction the chain does not run
// (Runs) negotiates, as Process would.
func (c *Chain) Observe(m *acp.Message) {
	if c != nil && c.caps != nil {
		c.caps.Observe(m)
	}
}

// Caps is the negotiated state the chain records into.
func (c *Chain) Caps() *capabilities.Negotiated { return c.caps }

// Process runs m through the chain's stages and hands what comes out to
// sink: observe (record what the peers negotiate, from m as it arrived),
// the filters (each counted; on a connection of a later protocol version
// only those that know it: the others stand aside, and with none m passes
// untouched), and the last stage (a line no filter changed passes byte for
// byte; one a filter wrote is checked).
func (c *Chain) Process(m *Message, sink Sink) error {
	if c == nil {
		return sink(Line{Dir: m.Dir, Raw: m.Raw, Original: true})
	}
	c.mu[m.Dir].Lock()
	defer c.mu[m.Dir].Unlock()
	if m.Caps == nil {
		m.Caps = c.caps
	}
	if m.Disk == nil {
		m.Disk = c.Disk
	}
	m.onNote = c.OnNote
	m.read = true
	c.observe(m)
	if c.allStandAside() {
		return sink(Line{Dir: m.Dir, Raw: m.Raw, Original: true})
	}
	return c.run(0, m, c.lastStage(m.Dir, m.Raw, sink))
}

// observe records the message as it arrived, before any filter changes
// it, in the connection's tracker (capabilities.Negotiated.Observe).
func (c *Chain) observe(m *Message) {
	if c.caps != nil {
		c.caps.Observe(&m.Message)
	}
}

// later reports whether the connection speaks a protocol version after 1.
func (c *Chain) later() bool {
	return c.caps != nil && c.caps.ProtocolVersion() > 1
}

// standsAside reports whether f stands aside on this connection: it speaks
// a protocol version after 1, and f knows only v1's shapes (see KnowsV2),
// so nothing is mangled and no capability is injected into a shape the
// filter does not know.
func (c *Chain) standsAside(f Filter) bool {
	return c.later() && !knowsV2(f)
}

// allStandAside reports whether every filter stands aside: the message
// then skips the chain.
func (c *Chain) allStandAside() bool {
	if !c.later() {
		return false
	}
	for _, f := range c.filters {
		if knowsV2(f) {
			return false
		}
	}
	return true
}

// run hands m to filter i, and what it emits onward. A filter that emitted
// nothing in m's direction has forwarded m, unless it dropped it; so has
// one that failed first (it fails open).
func (c *Chain) run(i int, m *Message, last *lastStage) error {
	if i == len(c.filters) {
		return last.deliver(m)
	}
	if c.standsAside(c.filters[i]) {
		// Not counted: a filter that stood aside took nothing in.
		return c.run(i+1, m, last)
	}
	c.counts[i].In[m.Dir].add(len(m.Raw))
	out := &c.stages[m.Dir][i]
	*out = stage{c: c, i: i, m: m, last: last}
	err := c.apply(c.filters[i], m, out)
	if out.writeErr != nil {
		return out.writeErr
	}
	dropped := errors.Is(err, Drop)
	if err != nil && !dropped {
		c.report(m.Dir, c.filters[i].Name(), err)
	}
	if out.emitted || dropped {
		return nil
	}
	return out.Emit(m.Dir, m.Raw)
}

func (c *Chain) report(d acp.Direction, filter string, err error) {
	if c.OnError != nil {
		c.OnError(d, filter, err)
	}
}

// apply calls the filter, turning a panic into an error.
func (c *Chain) apply(f Filter, m *Message, out Emitter) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f.Apply(m, out)
}

// Close closes the filters that hold what must be let go of (Closer), in
// order; the chain is not used after.
func (c *Chain) Close() {
	if c == nil {
		return
	}
	for _, f := range c.filters {
		if cl, ok := f.(Closer); ok {
			cl.Close()
		}
	}
}

// Tick runs the Timed filters of direction d at now and returns the
// earliest time one of them wants to be called again (zero: none).
func (c *Chain) Tick(d acp.Direction, now time.Time, sink Sink) (next time.Time, err error) {
	err = c.eachTimed(d, now, sink, "tick", func(t Timed, out *stage) {
		if n := t.Tick(d, now, out); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	})
	return next, err
}

// Drain asks every Timed filter to emit what it holds for direction d, in
// chain order, so held output reaches later filters before the stream ends
// (or before a line too long to filter passes them by).
func (c *Chain) Drain(d acp.Direction, now time.Time, sink Sink) error {
	return c.eachTimed(d, now, sink, "drain", func(t Timed, out *stage) { t.Drain(d, out) })
}

// eachTimed calls fn for every Timed filter, in order, under d's lock, with
// the emitter that feeds the filters after it. A panic is reported like an
// Apply failure; a write error downstream stops the walk.
func (c *Chain) eachTimed(d acp.Direction, now time.Time, sink Sink, what string, fn func(Timed, *stage)) error {
	if c == nil {
		return nil
	}
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	last := c.lastStage(d, nil, sink)
	for i, f := range c.filters {
		t, ok := f.(Timed)
		if !ok || c.standsAside(f) {
			continue
		}
		m := &c.timed[d]
		*m = Message{Message: acp.Message{Dir: d, Time: now}, Caps: c.caps, Disk: c.Disk, onNote: c.OnNote}
		out := &c.stages[d][i]
		*out = stage{c: c, i: i, m: m, last: last}
		func() {
			defer func() {
				if r := recover(); r != nil {
					c.report(d, f.Name(), fmt.Errorf("%s panic: %v", what, r))
				}
			}()
			fn(t, out)
		}()
		if out.writeErr != nil {
			return out.writeErr
		}
	}
	return nil
}
