package filters

import (
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
)

// Message is one line as a filter sees it: the message itself (acp.Message,
// its fields and view promoted), and what the connection knows around it.
//
// Raw points into the relay's read buffer: a filter must not modify it, and
// must copy what it keeps past Apply.
type Message struct {
	acp.Message
	// Caps is what the two sides negotiated and the state of their
	// sessions, recorded from the messages as they arrived.
	Caps *capabilities.Negotiated
	// Disk answers what the filters read from the filesystem (see Disk);
	// nil: the OS.
	Disk Disk
	// NoEOL says the line did not end in '\n': the last line of a stream,
	// cut short. A line a filter holds and sends on later (Hold) leaves
	// as it came, without one.
	NoEOL bool
	// Give, set by the relay, gives up the buffer the line was read into
	// to a filter that keeps a part of it (Keep): the part and a buffer
	// given before that its keeper lets go of; it returns the buffer, or
	// false when the part is to be copied. Nil: every part is copied.
	Give func(part, spare []byte) ([]byte, bool)
	// onNote is the chain's OnNote, which Note calls (nil: nobody listens).
	onNote func(Note)
	// read: m is the line as it was read (the chain's own message, not a
	// line a filter wrote); held: a filter holds it (Hold).
	read, held bool
}

// Held is a line a filter held back when it arrived, to send it on later,
// unchanged, with EmitHeld: it stays the line as read, and the relay tells
// its observers so (the line read at Time passes, late).
type Held struct {
	Dir   acp.Direction
	Raw   []byte    // the line, the filter's own copy
	Time  time.Time // when it was read
	NoEOL bool      // it did not end in '\n' (see Message.NoEOL)
	// read: Raw is the line as read; false for a line an earlier filter
	// wrote, which EmitHeld sends on as the filter's own line.
	read bool
}

// Hold holds m back: the filter keeps the Held (a copy of the line), returns
// Drop from Apply, and sends the line on later with EmitHeld (or, changed,
// with EmitHeldAs). The relay then tells its observers the line is held
// (proxy.Passage.Held), and, when it leaves, that it passed, unchanged or
// changed. What a filter holds it sends on, each
// line once, in the order the lines came (by Drain at the latest): the
// observers pair each line leaving with the line held by that order. A line
// the filter may yet drop, or replace with lines of its own (coalesced
// output), is not held this way: the filter emits what it sends as its own.
func (m *Message) Hold() *Held {
	m.held = m.held || m.read
	return &Held{Dir: m.Dir, Raw: append([]byte(nil), m.Raw...), Time: m.Time, NoEOL: m.NoEOL, read: m.read}
}

// Kept is a part of a line that a filter keeps after Apply returns
// (Message.Keep).
type Kept struct {
	Bytes []byte
	buf   []byte // the read buffer Bytes lies in, given up by the relay; nil for a copy
}

// Keep returns part, a part of the line as read (m.Raw), as bytes the
// filter may keep after Apply returns, when a line's own bytes are no
// longer valid: where they lie, when the relay gives up the buffer they
// were read into (Give: a long line, such as a command's output snapshot,
// costs no copy), or else a copy. prev is what the filter kept before and
// lets go of now: its room is used again. Call it from Apply only, with a
// part of m.Raw.
func (m *Message) Keep(prev Kept, part []byte) Kept {
	if m.Give != nil {
		if buf, ok := m.Give(part, prev.buf); ok {
			return Kept{Bytes: part, buf: buf}
		}
	}
	if prev.buf != nil {
		prev.Bytes = nil // the relay's buffer: its room is not the filter's
	}
	return Kept{Bytes: append(prev.Bytes[:0], part...)}
}

// Held reports whether a filter holds m, the line as read, to send it on
// later (Hold): the relay asks after the chain has run.
func (m *Message) Held() bool { return m.held }

// NewMessage returns a filter's view of raw. The chain creates these;
// tests may too.
func NewMessage(dir acp.Direction, raw []byte, t time.Time, caps *capabilities.Negotiated) *Message {
	return &Message{Message: acp.Message{Dir: dir, Raw: raw, Time: t}, Caps: caps}
}
