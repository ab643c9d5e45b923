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
	// onNote is the chain's OnNote, which Note calls (nil: nobody listens).
	onNote func(Note)
}

// NewMessage returns a filter's view of raw. The chain creates these;
// tests may too.
func NewMessage(dir acp.Direction, raw []byte, t time.Time, caps *capabilities.Negotiated) *Message {
	return &Message{Message: acp.Message{Dir: dir, Raw: raw, Time: t}, Caps: caps}
}
