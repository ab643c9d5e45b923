package view

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/acp"
)

// requests follows one stream's requests, in both directions, each from
// its request to its response, by raw id. Observe and Answered are those
// of the connection's tracker (capabilities.Negotiated), for every
// request rather than the client's initialize and session requests alone:
// the view labels each response with its request's method.
type requests struct {
	inFlight [2]map[string]*request // by direction sent, by raw id
	// answered is the request the last response observed answers, and
	// that response's id; nil when it answered none.
	answered   *request
	answeredID []byte
}

// request is a request in flight or answered.
type request struct {
	Method string
	// A permission request's: its conversation entry (-1: none), and its
	// options' names by optionId.
	event int
	opts  map[string]string
}

func newRequests() *requests {
	return &requests{inFlight: [2]map[string]*request{{}, {}}}
}

// Observe records m: a request (a method and an id) is followed until
// its response; a response (an id and no method) answers the request of
// its id sent the other way, if any. A request id used again replaces
// the earlier request.
func (r *requests) Observe(m *acp.Message) {
	method, id := m.Method(), m.ID()
	switch {
	case id == nil:
	case method != "":
		r.inFlight[m.Dir][string(id)] = &request{Method: method, event: -1}
	default:
		pending := r.inFlight[m.Dir.Reverse()]
		r.answered, r.answeredID = pending[string(id)], id
		delete(pending, string(id))
	}
}

// Answered returns the request m, the last response observed, answers.
func (r *requests) Answered(m *acp.Message) (*request, bool) {
	if r.answered == nil || !bytes.Equal(m.ID(), r.answeredID) {
		return nil, false
	}
	return r.answered, true
}

// InFlight returns the request m, a request just observed, opened: what
// its answer will need is noted in it. nil when m has no id.
func (r *requests) InFlight(m *acp.Message) *request {
	if m.ID() == nil {
		return nil
	}
	return r.inFlight[m.Dir][string(m.ID())]
}
