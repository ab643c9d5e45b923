package shellpatch

import (
	"bytes"
	"sync"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// maxRequestsInFlight bounds the client requests requests remembers; a client that never gets
// its answers must not grow the state forever.
const maxRequestsInFlight = 1024

// requests tracks the client's session/load, session/resume and session/prompt requests until
// their responses: a load replays the session's history meanwhile, a load or resume may move a
// claude shell, and a prompt's response ends the turn, and with it every call still open.
type requests struct {
	mu      sync.Mutex
	ids     map[string]request // request id → what it asked
	loading map[string]int     // sessionId → loads in flight
}

type request struct{ method, sid string }

// watchedMethods are the requests tracked, as they appear quoted in a message.
var watchedMethods = [][]byte{[]byte(`"session/load"`), []byte(`"session/resume"`), []byte(`"session/prompt"`)}

func (r *requests) observeRequest(m *filters.Message) {
	watched := false
	for _, q := range watchedMethods {
		watched = watched || bytes.Contains(m.Raw, q)
	}
	if !watched || !m.IsRequest() {
		return
	}
	method := m.Method()
	sid, _ := rawjson.GetString(m.Params(), "sessionId")
	if sid == "" || method != "session/load" && method != "session/resume" && method != "session/prompt" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids, r.loading = map[string]request{}, map[string]int{}
	}
	if len(r.ids) >= maxRequestsInFlight {
		return
	}
	r.ids[string(m.ID())] = request{method, sid}
	if method == "session/load" {
		r.loading[sid]++
	}
}

// observeResponse reports the request m (agent→client) answers, if it is one tracked.
func (r *requests) observeResponse(m *filters.Message) (request, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ids) == 0 || !m.IsResponse() {
		return request{}, false
	}
	req, ok := r.ids[string(m.ID())]
	if !ok {
		return request{}, false
	}
	delete(r.ids, string(m.ID()))
	if req.method == "session/load" {
		if r.loading[req.sid]--; r.loading[req.sid] <= 0 {
			delete(r.loading, req.sid)
		}
	}
	return req, true
}

// replaying reports whether session sid is being loaded: its agent replays history.
func (r *requests) replaying(sid string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loading[sid] > 0
}
