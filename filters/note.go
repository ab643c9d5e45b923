package filters

import (
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Note is one thing a filter did that an observer may show beside the
// messages, such as an OpenTelemetry span event: shell-to-patch showed a
// command as an edit, found the file held what it showed, took it back.
// Notes say what happened to which tool call; the messages themselves go
// to the taps.
type Note struct {
	Time       time.Time     // when: the time of the message being filtered
	Dir        acp.Direction // the direction of that message
	Filter     string        // the filter's name (Filter.Name)
	Event      string        // what it did, in a few words ("edit shown"), naming no file or command
	SessionID  string
	ToolCallID string
	// RequestID is the JSON text of the id of the request the note is
	// about ("" when none): a permission request the policy answered.
	RequestID string
	// Files is how many files the action concerns (0: none or not known).
	Files int
	// Detail says why, in words that may name files and commands: content
	// an observer shows only when asked to. "" when there is nothing to
	// add.
	Detail string
	// Audit says the note is a decision a record of the session must keep
	// (the policy's): a --record trace holds it as a "note" record.
	Audit bool
}

// Note tells the chain's OnNote of n, at the message's time unless n has
// one. Without an OnNote it does nothing and costs one comparison: a
// filter that would work to fill in n asks Noting first.
func (m *Message) Note(n Note) {
	if m.onNote == nil {
		return
	}
	if n.Time.IsZero() {
		n.Time = m.Time
	}
	n.Dir = m.Dir
	m.onNote(n)
}

// Noting reports whether anyone is told of m's notes.
func (m *Message) Noting() bool { return m.onNote != nil }

// ListenNotes adds listen to those the chain tells of its filters' notes
// (OnNote), after any already there: the trace and the span exporter both
// listen.
func (c *Chain) ListenNotes(listen func(Note)) {
	prev := c.OnNote
	if prev == nil {
		c.OnNote = listen
		return
	}
	c.OnNote = func(n Note) {
		prev(n)
		listen(n)
	}
}

// Auditor is a filter whose notes include decisions a record of the session must keep
// (Note.Audit): the policy.
type Auditor interface {
	Audits() bool
}

// Audits reports whether a filter of the chain takes decisions a record of the session must
// keep. Only then do a trace and the live view listen to the notes: a filter that notes its work
// does that work only when someone listens (Noting).
func (c *Chain) Audits() bool {
	if c == nil {
		return false
	}
	for _, f := range c.filters {
		if a, ok := f.(Auditor); ok && a.Audits() {
			return true
		}
	}
	return false
}
