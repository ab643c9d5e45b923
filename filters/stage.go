package filters

import (
	"bytes"
	"fmt"

	"github.com/acp-proxy/acp-proxy/acp"
)

// stage is the Emitter filter i writes to: a line in the message's own
// direction goes to filter i+1, one in the other direction to the sink.
type stage struct {
	c        *Chain
	i        int
	m        *Message
	last     *lastStage
	emitted  bool  // a line went on in m's direction
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
	s.c.counts[s.i].Out[d].add(len(raw))
	if d != s.m.Dir {
		if !(&acp.Message{Dir: d, Raw: raw}).Checked() {
			return fmt.Errorf("filter %s: %w", s.c.filters[s.i].Name(), ErrInvalidLine)
		}
		s.writeErr = s.last.sink(Line{Dir: d, Raw: raw})
		return s.writeErr
	}
	s.emitted = true
	next := s.m
	if !sameBytes(raw, s.m.Raw) {
		next = &Message{Message: acp.Message{Dir: d, Raw: raw, Time: s.m.Time}, Caps: s.m.Caps, Disk: s.m.Disk}
	}
	s.writeErr = s.c.run(s.i+1, next, s.last)
	return s.writeErr
}

// EmitHeld sends on raw, a line of direction d that the filter writing to
// out held back when it arrived (its Apply returned Drop) and releases now,
// from Tick or Drain, unchanged: it stays the line as read, passed byte for
// byte and not checked, as it would have passed when it arrived, however
// little of JSON it is. Any other Emitter is given it by Emit.
func EmitHeld(out Emitter, d acp.Direction, raw []byte) error {
	s, ok := out.(*stage)
	if !ok || d != s.m.Dir {
		return out.Emit(d, raw)
	}
	if s.writeErr != nil {
		return s.writeErr
	}
	s.c.counts[s.i].Out[d].add(len(raw))
	was := *s.last
	s.last.original, s.last.sentOriginal = raw, false
	next := &Message{Message: acp.Message{Dir: d, Raw: raw, Time: s.m.Time}, Caps: s.m.Caps, Disk: s.m.Disk, onNote: s.m.onNote}
	s.writeErr = s.c.run(s.i+1, next, s.last)
	s.last.original, s.last.sentOriginal = was.original, was.sentOriginal
	return s.writeErr
}

// lastStage is what a line passes after the last filter, on its way to the
// sink. The line as it was read (original) passes byte for byte. A line a
// filter wrote is checked in full first, strings included (Message.Valid
// says why it may not have been): one that is not valid JSON is a failure,
// reported, and the original goes in its place, once, so a client never
// gets broken JSON the agent did not send. A line that was never a peer's
// (Tick, Drain) has no stand-in.
type lastStage struct {
	c            *Chain
	sink         Sink
	original     []byte
	sentOriginal bool
}

// lastStage returns direction d's last stage, reset for a line (original;
// nil for what Tick and Drain emit) whose output goes to sink.
func (c *Chain) lastStage(d acp.Direction, original []byte, sink Sink) *lastStage {
	l := &c.last[d]
	*l = lastStage{c: c, sink: sink, original: original}
	return l
}

func (l *lastStage) deliver(m *Message) error {
	if sameBytes(m.Raw, l.original) {
		l.sentOriginal = true
		return l.sink(Line{Dir: m.Dir, Raw: m.Raw, Original: true})
	}
	if m.Checked() {
		return l.sink(Line{Dir: m.Dir, Raw: m.Raw})
	}
	l.c.report(m.Dir, "chain", ErrInvalidLine)
	if l.original == nil || l.sentOriginal {
		return nil
	}
	l.sentOriginal = true
	return l.sink(Line{Dir: m.Dir, Raw: l.original, Original: true})
}

// sameBytes reports whether a and b are the same slice (not merely equal):
// a filter that forwards m.Raw passes the very bytes it was given.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
