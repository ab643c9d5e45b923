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

// EmitHeld sends on h, a line the filter writing to out held back when it
// arrived (Message.Hold) and releases now, from Tick, Drain or Apply: the
// line as read passes byte for byte and unchecked, as it would have when it
// arrived, however little of JSON it is, and leaves as that line, late
// (Line.Held). A line an earlier filter wrote is sent on as the filter's
// own (Emit); so is any line given to an Emitter that is not the chain's.
func EmitHeld(out Emitter, h *Held) error {
	s, ok := out.(*stage)
	if !ok || !h.read || h.Dir != s.m.Dir {
		return out.Emit(h.Dir, h.Raw)
	}
	if s.writeErr != nil {
		return s.writeErr
	}
	s.c.counts[s.i].Out[h.Dir].add(len(h.Raw))
	was := *s.last
	s.last.original, s.last.sentOriginal, s.last.held = h.Raw, false, h
	next := &Message{Message: acp.Message{Dir: h.Dir, Raw: h.Raw, Time: h.Time}, NoEOL: h.NoEOL, read: true,
		Caps: s.m.Caps, Disk: s.m.Disk, onNote: s.m.onNote}
	s.writeErr = s.c.run(s.i+1, next, s.last)
	s.last.original, s.last.sentOriginal, s.last.held = was.original, was.sentOriginal, was.held
	return s.writeErr
}

// EmitHeldAs sends on h, a line the filter writing to out held back when it
// arrived (Message.Hold), changed: raw leaves in its place. raw is a line
// the filter wrote: it passes the filters after it and is checked, as Emit's
// lines are; it leaves as the held line's release (Line.Held), not as a line
// the proxy added, so the observers see the line read at h.Time leave late,
// changed. Should raw not be one valid JSON object, or hold a '\n', that is
// reported and the held line leaves as it came. A line an earlier filter wrote, or an Emitter that is not the
// chain's, gets raw as the filter's own line (Emit).
func EmitHeldAs(out Emitter, h *Held, raw []byte) error {
	s, ok := out.(*stage)
	if !ok || !h.read || h.Dir != s.m.Dir {
		return out.Emit(h.Dir, raw)
	}
	if s.writeErr != nil {
		return s.writeErr
	}
	if bytes.IndexByte(raw, '\n') >= 0 {
		// The held line must leave (each once, in order): as it came.
		s.c.report(h.Dir, s.c.filters[s.i].Name(), ErrNewline)
		return EmitHeld(out, h)
	}
	s.c.counts[s.i].Out[h.Dir].add(len(raw))
	was := *s.last
	s.last.original, s.last.sentOriginal, s.last.held = h.Raw, false, h
	next := &Message{Message: acp.Message{Dir: h.Dir, Raw: raw, Time: h.Time},
		Caps: s.m.Caps, Disk: s.m.Disk, onNote: s.m.onNote}
	s.writeErr = s.c.run(s.i+1, next, s.last)
	s.last.original, s.last.sentOriginal, s.last.held = was.original, was.sentOriginal, was.held
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
	// held: original is a held line, sent on late (EmitHeld), or the
	// line that leaves in its place (EmitHeldAs, or a later filter's).
	held *Held
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
		return l.sink(Line{Dir: m.Dir, Raw: m.Raw, Original: true, Held: l.held})
	}
	if m.Checked() {
		return l.sink(Line{Dir: m.Dir, Raw: m.Raw, Held: l.held})
	}
	l.c.report(m.Dir, "chain", ErrInvalidLine)
	if l.original == nil || l.sentOriginal {
		return nil
	}
	l.sentOriginal = true
	return l.sink(Line{Dir: m.Dir, Raw: l.original, Original: true, Held: l.held})
}

// sameBytes reports whether a and b are the same slice (not merely equal):
// a filter that forwards m.Raw passes the very bytes it was given.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
