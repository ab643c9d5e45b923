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
	Disk   Disk
	mu     [2]sync.Mutex // serialises Process, Tick and Drain per direction
	counts []filterCounts
	last   [2]lastStage // per direction, under mu
}

// NewChain returns a chain of fs, run in the given order, reading and
// recording negotiated state in caps.
func NewChain(caps *capabilities.Negotiated, fs ...Filter) *Chain {
	return &Chain{filters: fs, caps: caps, counts: make([]filterCounts, len(fs))}
}

// Len is the number of filters; a chain of none is a byte-exact relay.
func (c *Chain) Len() int {
	if c == nil {
		return 0
	}
	return len(c.filters)
}

// Caps is the negotiated state the chain records into.
func (c *Chain) Caps() *capabilities.Negotiated { return c.caps }

// Process runs m through the chain's stages and hands what comes out to
// sink: observe (record what the peers negotiate, from m as it arrived),
// stand aside (on a connection of a later protocol version m passes
// untouched), the filters (each counted), and the last stage (a line no
// filter changed passes byte for byte; one a filter wrote is checked).
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
	c.observe(m)
	if c.standsAside() {
		return sink(Line{Dir: m.Dir, Raw: m.Raw, Original: true})
	}
	return c.run(0, m, c.lastStage(m.Dir, m.Raw, sink))
}

// observe records initialize and session state from the message as it
// arrived, before any filter changes it.
func (c *Chain) observe(m *Message) {
	if c.caps == nil {
		return
	}
	switch m.Dir {
	case acp.ClientToAgent:
		if m.IsRequest() && capabilities.Watches(m.Method()) {
			c.caps.ObserveRequest(m.Method(), m.ID(), m.Params())
		}
	case acp.AgentToClient:
		if c.caps.Pending() && m.IsResponse() {
			c.caps.ObserveResponse(m.ID(), m.Result())
		}
	}
}

// standsAside reports whether the connection speaks a protocol version
// after 1. Every filter knows the v1 shapes alone: on such a connection
// they all stand aside, so nothing is mangled and no capability is
// injected into a shape the proxy does not know.
func (c *Chain) standsAside() bool {
	return c.caps != nil && c.caps.ProtocolVersion() > 1
}

// run hands m to filter i, and what it emits onward. A filter that emitted
// nothing in m's direction has forwarded m, unless it dropped it; so has
// one that failed first (it fails open).
func (c *Chain) run(i int, m *Message, last *lastStage) error {
	if i == len(c.filters) {
		return last.deliver(m)
	}
	c.counts[i].In[m.Dir].add(len(m.Raw))
	out := &stage{c: c, i: i, m: m, last: last}
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
		if !ok {
			continue
		}
		out := &stage{c: c, i: i, m: &Message{Message: acp.Message{Dir: d, Time: now}, Caps: c.caps, Disk: c.Disk}, last: last}
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
