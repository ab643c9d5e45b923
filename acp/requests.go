package acp

import "bytes"

// Requests follows requests to their responses by raw id: a request (a
// method and an id) sent one way is answered by the response with the same
// id sent the other way. It is the one place the module matches a response
// to its request; the connection's tracker (package capabilities) and the
// view keep what they need of each request in T. It is not safe for
// concurrent use.
type Requests[T any] struct {
	// Max bounds the requests in flight (0: no bound); past it, a new
	// request is not followed, so a peer that never answers cannot grow
	// the state forever.
	Max      int
	inFlight [2]map[string]T // by the direction the request was sent, by raw id
	// answered is the request the last response Close saw answers, and
	// that response's direction and id (nil: it answered none).
	answered    T
	answeredDir Direction
	answeredID  []byte
}

// Open follows m, a request, with v until its response. A request id used
// again in the same direction replaces the earlier request, which Open
// returns with replaced set. followed is false when m has no id, or Max
// requests are in flight.
func (r *Requests[T]) Open(m *Message, v T) (old T, replaced, followed bool) {
	id := m.ID()
	if id == nil {
		return old, false, false
	}
	if r.inFlight[m.Dir] == nil {
		r.inFlight[m.Dir] = map[string]T{}
	}
	pending := r.inFlight[m.Dir]
	if old, replaced = pending[string(id)]; replaced {
		delete(pending, string(id))
	}
	if r.Max > 0 && r.Len() >= r.Max {
		return old, replaced, false
	}
	pending[string(id)] = v
	return old, replaced, true
}

// Get returns what Open was given for m, a request still in flight.
func (r *Requests[T]) Get(m *Message) (v T, ok bool) {
	if id := m.ID(); id != nil {
		v, ok = r.inFlight[m.Dir][string(id)]
	}
	return v, ok
}

// Close stops following the request m, a response, answers (the request
// of its id sent the other way) and returns it. Until the next Close,
// Answered(m) returns it too.
func (r *Requests[T]) Close(m *Message) (v T, ok bool) {
	var zero T
	r.answered, r.answeredID = zero, nil
	id := m.ID()
	pending := r.inFlight[m.Dir.Reverse()]
	if v, ok = pending[string(id)]; !ok {
		return zero, false
	}
	delete(pending, string(id))
	r.answered, r.answeredDir, r.answeredID = v, m.Dir, append([]byte(nil), id...)
	return v, true
}

// Answered returns the request m answers, when m is the last response
// Close saw and it answered one: every reader that asks while that
// response passes gets the same answer.
func (r *Requests[T]) Answered(m *Message) (v T, ok bool) {
	if r.answeredID == nil || m.Dir != r.answeredDir || !m.IsResponse() || !bytes.Equal(m.ID(), r.answeredID) {
		return v, false
	}
	return r.answered, true
}

// Len is the number of requests in flight, both directions together.
func (r *Requests[T]) Len() int { return len(r.inFlight[0]) + len(r.inFlight[1]) }

// Idle reports whether no response could matter: none is awaited, and
// none is remembered as the last answer.
func (r *Requests[T]) Idle() bool { return r.Len() == 0 && r.answeredID == nil }
