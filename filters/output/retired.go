package output

import "github.com/acp-proxy/acp-proxy/internal/toolcall"

// retired are the calls a coalescing filter stopped following: ended, or
// evicted from its list of calls, or their turn over. An agent may stream
// a call's output after that (a chunk after the final update, a call
// evicted while it streams); a client without the extension can only be
// shown it by showing the call's whole output again, which a retired call
// still holds. So the later output of a retired call is appended to what
// the client shows (coalescer.revive), never shown in its place.
//
// Bounds: at most toolcall.List's 128 calls, holding together at most the
// calls' endedBudget (--max-output-bytes) bytes; past either, the oldest is
// forgotten. A forgotten call's later output is then shown as a call of
// its own would be: from that output on (docs/terminal-output.md).
type retired[T any, P interface {
	*T
	heldCall
}] struct {
	calls toolcall.List[T]
	bytes int64
}

// keep retires c, when its filter keeps ended calls and c fits, and
// returns the calls it no longer keeps: c itself when it does not fit, and
// those forgotten to make room.
func (r *retired[T, P]) keep(c P) (forgotten []P) {
	budget := c.endedBudget()
	size := int64(c.size())
	if budget <= 0 || size > budget {
		return []P{c}
	}
	session, id := c.key()
	r.drop(session, id)
	if old := P(r.calls.Add(session, id, (*T)(c))); old != nil {
		r.bytes -= int64(old.size())
		forgotten = append(forgotten, old)
	}
	r.bytes += size
	for r.bytes > budget && r.calls.Len() > 1 {
		old := P(r.calls.RemoveOldest())
		r.bytes -= int64(old.size())
		forgotten = append(forgotten, old)
	}
	return forgotten
}

// take returns the retired call id of session and forgets it, or nil.
func (r *retired[T, P]) take(session, id string) P {
	c := P(r.calls.Get(session, id))
	if c != nil {
		r.drop(session, id)
	}
	return c
}

// drop forgets the retired call id of session.
func (r *retired[T, P]) drop(session, id string) {
	if c := P(r.calls.Get(session, id)); c != nil {
		r.bytes -= int64(c.size())
		r.calls.Remove(session, id)
	}
}
