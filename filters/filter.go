package filters

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
)

// Filter inspects and rewrites the messages of a connection.
type Filter interface {
	// Name is the filter's flag name, used in logs and statistics.
	Name() string
	// Apply is called with each message of either direction, in order.
	// To forward it unchanged, emit m.Raw; to drop it, emit nothing; to
	// replace it or add messages, emit other lines (each one JSON-RPC
	// message without '\n'). Apply must not keep m.Raw after it returns.
	Apply(ctx context.Context, m *Message, out Emitter) error
}

// Emitter takes a filter's output.
type Emitter interface {
	// Emit sends raw onward in direction d. In the message's own direction
	// it goes to the next filter; in the other direction it goes straight
	// to that side's writer, after what was already written there.
	Emit(d acp.Direction, raw []byte) error
}

// Timed is implemented by filters that hold output back, to coalesce it.
// Its methods run under the same lock as Apply for that direction.
type Timed interface {
	// Tick emits what is due at now in direction d and returns when it
	// next wants to be called; the zero time means nothing is held.
	Tick(d acp.Direction, now time.Time, out Emitter) (next time.Time)
	// Drain emits everything still held for direction d; the input of
	// that direction has ended.
	Drain(d acp.Direction, out Emitter)
}

// Func adapts a function to a Filter.
type Func struct {
	FilterName string
	Fn         func(ctx context.Context, m *Message, out Emitter) error
}

var _ Filter = Func{}

func (f Func) Name() string { return f.FilterName }

func (f Func) Apply(ctx context.Context, m *Message, out Emitter) error { return f.Fn(ctx, m, out) }

// Sink receives what leaves the chain. original reports that raw is the
// message exactly as it was read, so the relay can write it byte for byte.
type Sink func(d acp.Direction, raw []byte, original bool) error

// ErrNewline is a filter's emitted line that would break the framing.
var ErrNewline = errors.New("emitted line contains a newline")

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
	Disk  Disk
	mu    [2]sync.Mutex // serialises Process, Tick and Drain per direction
	stats []FilterStats
	// sentOriginal is whether the message Process is running has reached
	// the sink as it arrived, per direction (under mu).
	sentOriginal [2]bool
}

// ErrInvalidLine is a line a filter wrote that is not one valid JSON
// object.
var ErrInvalidLine = errors.New("written line is not a valid JSON object")

// NewChain returns a chain of fs, run in the given order, reading and
// recording negotiated state in caps.
func NewChain(caps *capabilities.Negotiated, fs ...Filter) *Chain {
	return &Chain{filters: fs, caps: caps, stats: make([]FilterStats, len(fs))}
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

// Process runs m through the filters and hands what comes out to sink.
func (c *Chain) Process(ctx context.Context, m *Message, sink Sink) error {
	if c == nil {
		return sink(m.Dir, m.Raw, true)
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
	c.sentOriginal[m.Dir] = false
	if c.caps != nil && c.caps.ProtocolVersion() > 1 {
		// Every filter knows the v1 shapes alone: on a connection of a
		// later version they all stand aside, so nothing is mangled and
		// no capability is injected into a shape the proxy does not know.
		return sink(m.Dir, m.Raw, true)
	}
	return c.run(ctx, 0, m, sink, m.Raw)
}

// observe records the message as it arrived, before any filter changes
// it, in the connection's tracker (capabilities.Negotiated.Observe).
func (c *Chain) observe(m *Message) {
	if c.caps != nil {
		c.caps.Observe(&m.Message)
	}
}

// run hands m to filter i and onward. original is the line as it was read,
// so the sink can tell an untouched message from a rewritten one.
func (c *Chain) run(ctx context.Context, i int, m *Message, sink Sink, original []byte) error {
	if i == len(c.filters) {
		return c.deliver(m, sink, original)
	}
	st := &c.stats[i]
	st.count(m.Dir, true, len(m.Raw))
	out := &stage{c: c, i: i, m: m, sink: sink, original: original, ctx: ctx}
	err := c.apply(ctx, c.filters[i], m, out)
	if out.writeErr != nil {
		return out.writeErr
	}
	if err != nil {
		if c.OnError != nil {
			c.OnError(m.Dir, c.filters[i].Name(), err)
		}
		if !out.emitted {
			return out.Emit(m.Dir, m.Raw) // fail open
		}
	}
	return nil
}

// deliver hands m, a line the last filter emitted, to sink. A line a
// filter wrote (any but the original) is checked in full first, strings
// included (Message.Valid says why it may not have been): one that is not
// valid JSON is a failure, reported, and the line as it arrived goes in
// its place, once, so a client never gets broken JSON the agent did not
// send. A line that was never a peer's (Tick, Drain) has no stand-in.
func (c *Chain) deliver(m *Message, sink Sink, original []byte) error {
	if sameBytes(m.Raw, original) {
		c.sentOriginal[m.Dir] = true
		return sink(m.Dir, m.Raw, true)
	}
	if m.Checked() {
		return sink(m.Dir, m.Raw, false)
	}
	if c.OnError != nil {
		c.OnError(m.Dir, "chain", ErrInvalidLine)
	}
	if original == nil || c.sentOriginal[m.Dir] {
		return nil
	}
	c.sentOriginal[m.Dir] = true
	return sink(m.Dir, original, true)
}

// apply calls the filter, turning a panic into an error.
func (c *Chain) apply(ctx context.Context, f Filter, m *Message, out Emitter) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f.Apply(ctx, m, out)
}

// Tick runs the Timed filters of direction d at now and returns the
// earliest time one of them wants to be called again (zero: none).
func (c *Chain) Tick(ctx context.Context, d acp.Direction, now time.Time, sink Sink) (next time.Time, err error) {
	err = c.eachTimed(ctx, d, now, sink, "tick", func(t Timed, out *stage) {
		if n := t.Tick(d, now, out); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	})
	return next, err
}

// Drain asks every Timed filter to emit what it holds for direction d, in
// chain order, so held output reaches later filters before the stream ends
// (or before a line too long to filter passes them by).
func (c *Chain) Drain(ctx context.Context, d acp.Direction, now time.Time, sink Sink) error {
	return c.eachTimed(ctx, d, now, sink, "drain", func(t Timed, out *stage) { t.Drain(d, out) })
}

// eachTimed calls fn for every Timed filter, in order, under d's lock, with
// the emitter that feeds the filters after it. A panic is reported like an
// Apply failure; a write error downstream stops the walk.
func (c *Chain) eachTimed(ctx context.Context, d acp.Direction, now time.Time, sink Sink, what string, fn func(Timed, *stage)) error {
	if c == nil {
		return nil
	}
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	for i, f := range c.filters {
		t, ok := f.(Timed)
		if !ok {
			continue
		}
		out := &stage{c: c, i: i, m: &Message{Message: acp.Message{Dir: d, Time: now}, Caps: c.caps, Disk: c.Disk}, sink: sink, ctx: ctx}
		func() {
			defer func() {
				if r := recover(); r != nil && c.OnError != nil {
					c.OnError(d, f.Name(), fmt.Errorf("%s panic: %v", what, r))
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

// stage is the Emitter filter i writes to.
type stage struct {
	c        *Chain
	i        int
	m        *Message
	sink     Sink
	original []byte
	ctx      context.Context
	emitted  bool
	writeErr error // a failure downstream of the filter: the pipe, not the filter
}

func (s *stage) Emit(d acp.Direction, raw []byte) error {
	if s.writeErr != nil {
		return s.writeErr
	}
	// The message's own bytes were framed at '\n' (or checked when an
	// earlier filter emitted them): only other bytes need the search.
	if !sameBytes(raw, s.m.Raw) && bytes.IndexByte(raw, '\n') >= 0 {
		return fmt.Errorf("filter %s: %w", s.c.filters[s.i].Name(), ErrNewline)
	}
	s.c.stats[s.i].count(d, false, len(raw))
	if d != s.m.Dir {
		if !(&acp.Message{Dir: d, Raw: raw}).Checked() {
			return fmt.Errorf("filter %s: %w", s.c.filters[s.i].Name(), ErrInvalidLine)
		}
		err := s.sink(d, raw, false)
		s.writeErr = err
		return err
	}
	s.emitted = true
	next := s.m
	if !sameBytes(raw, s.m.Raw) {
		next = &Message{Message: acp.Message{Dir: d, Raw: raw, Time: s.m.Time}, Caps: s.m.Caps, Disk: s.m.Disk}
	}
	err := s.c.run(s.ctx, s.i+1, next, s.sink, s.original)
	s.writeErr = err
	return err
}

// sameBytes reports whether a and b are the same slice (not merely equal):
// a filter that forwards m.Raw passes the very bytes it was given.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
