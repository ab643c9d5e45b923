// Package capabilities holds what the client and the agent negotiated in
// initialize, and the sessions they opened, for filters to read.
//
// It records what the client itself advertised, before any filter changed
// the request: a filter that injects the terminal_output capability on the
// client's behalf must still know that the client cannot render it.
package capabilities

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// Client is what the client advertised in its initialize request (v1 field
// names; v2's "capabilities" is read as a fallback).
type Client struct {
	ProtocolVersion     int
	TerminalOutput      bool // clientCapabilities._meta.terminal_output === true
	TerminalOutputDelta bool // clientCapabilities._meta.terminal_output_delta === true
	Terminal            bool // clientCapabilities.terminal
	ReadTextFile        bool // clientCapabilities.fs.readTextFile
	WriteTextFile       bool // clientCapabilities.fs.writeTextFile
	Name                string
	Raw                 json.RawMessage // the clientCapabilities object as sent
}

// SpeaksTerminalOutput reports whether the client renders the
// terminal_output extension in either of its variants.
func (c Client) SpeaksTerminalOutput() bool { return c.TerminalOutput || c.TerminalOutputDelta }

// Agent is what the agent answered to initialize.
type Agent struct {
	ProtocolVersion int
	Name            string
	Version         string
	Raw             json.RawMessage // the agentCapabilities object as sent
}

// Session is what the proxy learned about one session.
type Session struct {
	ID  string
	Cwd string // absolute, as the client sent it in session/new or session/load
}

// Negotiated is the state of one connection. The zero value is not usable;
// call New. It is safe for concurrent use by both directions.
type Negotiated struct {
	mu          sync.RWMutex
	client      Client
	clientKnown bool
	agent       Agent
	agentKnown  bool
	sessions    map[string]Session
	pending     map[string]pendingRequest // request id (raw JSON) → what it asked
	// version is the protocol version in force: the agent's answer to
	// initialize, or until then the version the client asked for; 0 before
	// initialize. Atomic, because the chain reads it for every message.
	version atomic.Int32
}

// ProtocolVersion is the connection's ACP protocol version: what the agent
// answered to initialize, or, until it has, what the client asked for; 0
// when no initialize was seen (or its version was not an integer).
func (n *Negotiated) ProtocolVersion() int { return int(n.version.Load()) }

type pendingRequest struct {
	method string
	cwd    string
}

// New returns an empty Negotiated.
func New() *Negotiated {
	return &Negotiated{sessions: map[string]Session{}, pending: map[string]pendingRequest{}}
}

// Client returns what the client advertised, and whether initialize was seen.
func (n *Negotiated) Client() (Client, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.client, n.clientKnown
}

// Agent returns the agent's initialize result, and whether it was seen.
func (n *Negotiated) Agent() (Agent, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.agent, n.agentKnown
}

// Session returns what is known of session id.
func (n *Negotiated) Session(id string) (Session, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	s, ok := n.sessions[id]
	return s, ok
}

// Watches reports whether a client→agent request with this method is one
// ObserveRequest wants to see. It lets callers skip every other message
// without parsing it.
func Watches(method string) bool {
	switch method {
	case "initialize", "session/new", "session/load", "session/resume":
		return true
	}
	return false
}

// ObserveRequest records a client→agent request (see Watches). id is the raw
// JSON id; params the raw params. Keys are read exactly (see member); unknown
// shapes are ignored.
func (n *Negotiated) ObserveRequest(method string, id, params []byte) {
	version, ok := intAt(params, "protocolVersion")
	if !isObject(params) || !ok {
		return
	}
	cwd, sid := stringAt(params, "cwd"), stringAt(params, "sessionId")
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "initialize":
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
	case "session/load", "session/resume":
		if sid != "" {
			n.sessions[sid] = Session{ID: sid, Cwd: cwd}
		}
	}
	if id != nil {
		n.pending[string(id)] = pendingRequest{method: method, cwd: cwd}
	}
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

// Pending reports whether a response may be one ObserveResponse wants.
func (n *Negotiated) Pending() bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return len(n.pending) > 0
}

// ObserveResponse records an agent→client response to a watched request.
func (n *Negotiated) ObserveResponse(id, result []byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	req, ok := n.pending[string(id)]
	if !ok {
		return
	}
	delete(n.pending, string(id))
	if result == nil {
		return // an error response negotiates nothing
	}
	switch req.method {
	case "initialize":
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
	case "session/new":
		if sid := stringAt(result, "sessionId"); sid != "" {
			n.sessions[sid] = Session{ID: sid, Cwd: req.cwd}
		}
	}
}
