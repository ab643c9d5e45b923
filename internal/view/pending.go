package view

import "github.com/acp-proxy/acp-proxy/acp"

// pendingReqs are the requests sent in each direction and not yet
// answered, by raw id: a response is labelled with its request's method,
// and a permission request's answer goes to its event.
type pendingReqs [2]map[string]pendingReq

type pendingReq struct {
	method string
	event  int // permission: index in conv
	opts   map[string]string
}

func newPendingReqs() pendingReqs { return pendingReqs{{}, {}} }

// sent notes a request with id sent in direction d (again: replaces it).
func (p pendingReqs) sent(d acp.Direction, id []byte, req pendingReq) {
	p[d][string(id)] = req
}

// answered returns and forgets the request a response with id, sent in
// direction d, answers.
func (p pendingReqs) answered(d acp.Direction, id []byte) (pendingReq, bool) {
	req, ok := p[d.Reverse()][string(id)]
	delete(p[d.Reverse()], string(id))
	return req, ok
}
