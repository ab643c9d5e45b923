package view

import (
	"github.com/acp-proxy/acp-proxy/acp"
)

// requests follows one stream's requests, in both directions, each from
// its request to its response, with the module's one matcher
// (acp.Requests), as the connection's tracker (capabilities.Negotiated)
// does for the client's initialize and session requests; the view follows
// every request, to label each response with its request's method.
type requests struct {
	acp.Requests[*request]
}

// request is a request in flight or answered.
type request struct {
	Method string
	// A permission request's: its conversation entry (-1: none), and its
	// options' names by optionId.
	event int
	opts  map[string]string
}

func newRequests() *requests { return &requests{} }

// Observe records m: a request (a method and an id) is followed until
// its response; a response (an id and no method) answers the request of
// its id sent the other way, if any. A request id used again replaces
// the earlier request.
func (r *requests) Observe(m *acp.Message) {
	switch {
	case m.ID() == nil:
	case m.Method() != "":
		r.Open(m, &request{Method: m.Method(), event: -1})
	default:
		r.Close(m)
	}
}

// InFlight returns the request m, a request just observed, opened: what
// its answer will need is noted in it. nil when m has no id.
func (r *requests) InFlight(m *acp.Message) *request {
	req, _ := r.Get(m)
	return req
}
