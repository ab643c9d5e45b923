package capabilities

import (
	"encoding/json"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Request is one of the client's requests the tracker follows until its
// response.
type Request struct {
	// Method is initialize, session/new, session/load, session/resume or
	// session/prompt.
	Method string
	// Session is the request's params.sessionId; for session/new, the
	// sessionId of its result once answered. "" when there is none.
	Session string
	// Cwd is the request's params.cwd (session/new, load, resume), or "".
	Cwd string
}

// maxInFlight bounds the requests followed at once: a client that never
// gets its answers must not grow the state forever. Past it, further
// requests are not followed.
const maxInFlight = 1024

// tracked reports whether the tracker follows a client request of method.
// Follows reports whether the tracker reads a client's requests of method:
// a client's line of any other method it never reads.
func Follows(method string) bool {
	switch method {
	case "initialize", "session/new", "session/load", "session/resume", "session/prompt":
		return true
	}
	return false
}

// Observe records m, a message as it arrived, before any filter changed
// it: the chain calls it for every message of both directions, in order,
// before the filters see the message, and so must any other reader that
// asks the tracker. Keys are read exactly (see member); unknown shapes are
// ignored.
func (n *Negotiated) Observe(m *acp.Message) {
	switch m.Dir {
	case acp.ClientToAgent:
		if method, ok := m.MethodAtHead(); ok && !Follows(string(method)) {
			return // not parsed: a method the tracker does not follow
		}
		if m.IsRequest() && Follows(m.Method()) {
			n.observeRequest(m)
		}
	case acp.AgentToClient:
		if n.awaiting() && !acp.BeginsWithMethod(m.Raw) && m.IsResponse() {
			n.observeResponse(m)
		}
	}
}

// awaiting reports whether a response could matter: one is awaited, or
// the last one answered is still to be forgotten.
func (n *Negotiated) awaiting() bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return !n.requests.Idle()
}

// observeRequest records m, a client request of a tracked method.
func (n *Negotiated) observeRequest(m *acp.Message) {
	method, params := m.Method(), m.Params()
	if !isObject(params) {
		return
	}
	req := Request{Method: method, Session: stringAt(params, "sessionId"), Cwd: stringAt(params, "cwd")}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "initialize":
		if !n.observeInitialize(params) {
			return
		}
	case "session/load", "session/resume":
		if req.Session != "" {
			n.keepSession(Session{ID: req.Session, Cwd: req.Cwd})
		}
	}
	old, replaced, followed := n.requests.Open(m, &req)
	if replaced { // a request id used again: the earlier request is no longer answered
		n.loaded(old)
	}
	if followed && method == "session/load" && req.Session != "" {
		n.loading[req.Session]++
	}
}

// observeInitialize records the client's initialize params; false when
// they are not understood (the protocol version is not an integer).
func (n *Negotiated) observeInitialize(params []byte) bool {
	version, ok := intAt(params, "protocolVersion")
	if !ok {
		return false
	}
	caps := objectAt(params, "clientCapabilities")
	if _, present := member(params, "clientCapabilities"); !present {
		caps = objectAt(params, "capabilities") // v2 draft
	}
	n.client = parseClient(caps)
	n.client.ProtocolVersion = version
	n.client.Name = stringAt(params, "clientInfo", "name")
	n.clientKnown = true
	if !n.agentKnown {
		n.version.Store(int32(version))
	}
	return true
}

func parseClient(raw []byte) Client {
	return Client{
		TerminalOutput:      trueAt(raw, "_meta", "terminal_output"),
		TerminalOutputDelta: trueAt(raw, "_meta", "terminal_output_delta"),
		Terminal:            trueAt(raw, "terminal"),
		ReadTextFile:        trueAt(raw, "fs", "readTextFile"),
		WriteTextFile:       trueAt(raw, "fs", "writeTextFile"),
		Raw:                 append(json.RawMessage(nil), raw...),
	}
}

// loaded notes that req is no longer in flight: a session/load among them
// no longer loads its session (under mu).
func (n *Negotiated) loaded(req *Request) {
	if req.Method == "session/load" && req.Session != "" {
		if n.loading[req.Session]--; n.loading[req.Session] <= 0 {
			delete(n.loading, req.Session)
		}
	}
}

// observeResponse records m, an agent→client response: an error response
// negotiates nothing but still answers its request.
func (n *Negotiated) observeResponse(m *acp.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	req, ok := n.requests.Close(m)
	if !ok {
		return
	}
	n.loaded(req)
	if result := m.Result(); result != nil {
		switch req.Method {
		case "initialize":
			n.observeAgent(result)
		case "session/new":
			if req.Session = stringAt(result, "sessionId"); req.Session != "" {
				n.keepSession(Session{ID: req.Session, Cwd: req.Cwd})
			}
		}
	}
}

// observeAgent records the agent's initialize result (under mu).
func (n *Negotiated) observeAgent(result []byte) {
	version, ok := intAt(result, "protocolVersion")
	if !isObject(result) || !ok {
		return
	}
	caps := objectAt(result, "agentCapabilities")
	if _, present := member(result, "agentCapabilities"); !present {
		caps = objectAt(result, "capabilities")
	}
	name, agentVersion := stringAt(result, "agentInfo", "name"), stringAt(result, "agentInfo", "version")
	if name == "" { // v2
		name, agentVersion = stringAt(result, "info", "name"), stringAt(result, "info", "version")
	}
	n.agent = Agent{ProtocolVersion: version, Name: name, Version: agentVersion, Raw: append(json.RawMessage(nil), caps...)}
	n.agentKnown = true
	n.version.Store(int32(version))
}

// Answered returns the client request that m, an agent→client response,
// answers, when it is one the tracker followed. It holds while m is the
// last response observed: from Observe(m) until the next response's.
func (n *Negotiated) Answered(m *acp.Message) (Request, bool) {
	if n == nil || m.Dir != acp.AgentToClient || acp.BeginsWithMethod(m.Raw) {
		return Request{}, false
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	req, ok := n.requests.Answered(m)
	if !ok {
		return Request{}, false
	}
	return *req, true
}

// TurnEnded reports the session whose prompt turn m ends: m is the
// response (a result or an error) to a session/prompt naming a session.
func (n *Negotiated) TurnEnded(m *acp.Message) (session string, ok bool) {
	req, ok := n.Answered(m)
	if !ok || req.Method != "session/prompt" || req.Session == "" {
		return "", false
	}
	return req.Session, true
}

// Loading reports whether a session/load of session is in flight: the
// agent is replaying the session's history.
func (n *Negotiated) Loading(session string) bool {
	if n == nil {
		return false
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.loading[session] > 0
}
