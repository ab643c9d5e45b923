package trace

import (
	"bytes"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Connections tells the connections of a trace apart, one record at a
// time: each starts with a "connection" record, or, in a trace recorded
// before those, with the client's initialize request.
type Connections struct {
	n           int
	started     bool // the connection has a line or a "connection" record
	initialized bool // the connection has had its initialize request
}

// Starts reports whether rec begins a connection: the first record that
// has a line or is a "connection" record, and every one after it that
// begins another.
func (c *Connections) Starts(rec Record) bool {
	init := isInitialize(rec)
	starts := c.n == 0 && (rec.HasLine || rec.Conn != nil) || c.started && (rec.Conn != nil || c.initialized && init)
	if starts {
		c.n++
		c.started, c.initialized = false, false
	}
	c.started = c.started || rec.HasLine || rec.Conn != nil
	c.initialized = c.initialized || init
	return starts
}

// N is the number of connections begun so far.
func (c *Connections) N() int { return c.n }

// isInitialize reports whether rec is the client's initialize request.
func isInitialize(rec Record) bool {
	if rec.Dir != acp.ClientToAgent || !rec.HasLine || rec.Released || !bytes.Contains(rec.Line, []byte(`"initialize"`)) {
		return false
	}
	m := acp.NewMessage(rec.Dir, rec.Line, time.Time{})
	return m.IsRequest() && m.Method() == "initialize"
}
