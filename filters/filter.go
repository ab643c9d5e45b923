package filters

import (
	"errors"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Filter inspects and rewrites the messages of a connection.
type Filter interface {
	// Name is the filter's flag name, used in logs and statistics.
	Name() string
	// Apply is called with each message of either direction, in order.
	//
	// A filter that returns nil without emitting in m's direction has
	// forwarded m unchanged; one that returns Drop has dropped it. To
	// replace m, or to add messages, it emits lines (each one JSON-RPC
	// message without '\n'): once it emits in m's direction, only what it
	// emitted goes on, so a filter that adds a line before m emits m.Raw
	// after it. A line emitted in the other direction goes to that side
	// and leaves m to go on. Apply must not keep m.Raw, nor out, after it
	// returns (the chain reuses the emitter for the next line).
	Apply(m *Message, out Emitter) error
}

// Drop is what Apply returns to drop its message: nothing goes on in its
// place but what the filter emitted. It is a decision, not a failure, and
// is not reported.
//
//lint:ignore ST1012 Drop is a filter's decision, not an error, as io.EOF is an ending.
var Drop = errors.New("message dropped by the filter")

// Emitter takes a filter's output.
type Emitter interface {
	// Emit sends raw onward in direction d. In the message's own direction
	// it goes to the next filter; in the other direction it goes straight
	// to that side's writer, after what was already written there.
	Emit(d acp.Direction, raw []byte) error
}

// KnowsV2 is implemented by filters that know the shapes of ACP v2 (a
// connection whose negotiated protocolVersion is over 1: tool calls opened
// by their first tool_call_update, permission requests with a subject,
// structured diffs, display terminals). On such a connection only these
// run; every other filter stands aside, so that no v1 rewrite mangles a
// shape it does not know.
type KnowsV2 interface {
	// KnowsV2 reports whether the filter acts on v2 connections.
	KnowsV2() bool
}

// knowsV2 reports whether f runs on a v2 connection.
func knowsV2(f Filter) bool {
	k, ok := f.(KnowsV2)
	return ok && k.KnowsV2()
}

// OneWay is implemented by filters that read the messages of one direction
// only: a direction no filter of a chain reads skips the chain (Runs), and
// the relay passes its lines as it does without filters.
type OneWay interface {
	// Reads reports whether the filter reads direction d's messages.
	Reads(d acp.Direction) bool
}

// Timed is implemented by filters that hold output back, to coalesce it.
// Its methods run under the same lock as Apply for that direction, and
// keep their emitter no longer than Apply does.
type Timed interface {
	// Tick emits what is due at now in direction d and returns when it
	// next wants to be called; the zero time means nothing is held.
	Tick(d acp.Direction, now time.Time, out Emitter) (next time.Time)
	// Drain emits everything still held for direction d; the input of
	// that direction has ended.
	Drain(d acp.Direction, out Emitter)
}

// Woken is implemented by a Timed filter whose work finishes off the pump
// (a report made on a goroutine of its own): the driver gives it wake,
// which has direction d's Tick run soon and may be called from any
// goroutine, so that the filter never asks to be called just to look.
type Woken interface {
	SetWake(wake func(d acp.Direction))
}

// Closer is implemented by a filter that holds what must be let go of when
// its connection ends (goroutines, open files): the relay closes the chain
// once both directions have ended and been drained.
type Closer interface {
	Close()
}

// Func adapts a function to a Filter.
type Func struct {
	FilterName string
	Fn         func(m *Message, out Emitter) error
}

var _ Filter = Func{}

func (f Func) Name() string { return f.FilterName }

func (f Func) Apply(m *Message, out Emitter) error { return f.Fn(m, out) }

// Line is one line leaving the chain.
type Line struct {
	Dir acp.Direction
	Raw []byte
	// Original is whether Raw is the line exactly as it was read, which no
	// filter changed: the relay writes it byte for byte, with its own
	// ending.
	Original bool
	// Held says the line is the release of a line a filter held back
	// when it arrived (Held.Raw), sent on now: Original, the held line
	// itself (EmitHeld), which the relay writes with its own ending;
	// otherwise the line that leaves in its place (EmitHeldAs, or what a
	// later filter made of it), a whole message. The relay tells its
	// observers the line read at Held.Time left, late. Nil for every
	// other line.
	Held *Held
}

// Sink receives the lines that leave the chain.
type Sink func(Line) error

// ErrNewline is a filter's emitted line that would break the framing.
var ErrNewline = errors.New("emitted line contains a newline")

// ErrInvalidLine is a line a filter wrote that is not one valid JSON
// object.
var ErrInvalidLine = errors.New("written line is not a valid JSON object")
