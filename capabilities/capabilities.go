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
// JSON id; params the raw params. Unknown shapes are ignored.
func (n *Negotiated) ObserveRequest(method string, id, params []byte) {
	var p struct {
		ProtocolVersion    int             `json:"protocolVersion"`
		ClientCapabilities json.RawMessage `json:"clientCapabilities"`
		Capabilities       json.RawMessage `json:"capabilities"` // v2 draft
		ClientInfo         struct {
			Name string `json:"name"`
		} `json:"clientInfo"`
		Cwd       string `json:"cwd"`
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch method {
	case "initialize":
		caps := p.ClientCapabilities
		if caps == nil {
			caps = p.Capabilities
		}
		n.client = parseClient(caps)
		n.client.ProtocolVersion = p.ProtocolVersion
		n.client.Name = p.ClientInfo.Name
		n.clientKnown = true
		if !n.agentKnown {
			n.version.Store(int32(p.ProtocolVersion))
		}
	case "session/load", "session/resume":
		if p.SessionID != "" {
			n.sessions[p.SessionID] = Session{ID: p.SessionID, Cwd: p.Cwd}
		}
	}
	if id != nil {
		n.pending[string(id)] = pendingRequest{method: method, cwd: p.Cwd}
	}
}

func parseClient(raw json.RawMessage) Client {
	var c struct {
		Meta     map[string]json.RawMessage `json:"_meta"`
		Terminal bool                       `json:"terminal"`
		FS       struct {
			Read  bool `json:"readTextFile"`
			Write bool `json:"writeTextFile"`
		} `json:"fs"`
	}
	_ = json.Unmarshal(raw, &c) // a shape we don't know reads as "nothing advertised"
	isTrue := func(v json.RawMessage) bool { return string(v) == "true" }
	return Client{
		TerminalOutput:      isTrue(c.Meta["terminal_output"]),
		TerminalOutputDelta: isTrue(c.Meta["terminal_output_delta"]),
		Terminal:            c.Terminal,
		ReadTextFile:        c.FS.Read,
		WriteTextFile:       c.FS.Write,
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
		var r struct {
			ProtocolVersion   int             `json:"protocolVersion"`
			AgentCapabilities json.RawMessage `json:"agentCapabilities"`
			Capabilities      json.RawMessage `json:"capabilities"`
			AgentInfo         struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"agentInfo"`
			Info struct { // v2
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"info"`
		}
		if json.Unmarshal(result, &r) != nil {
			return
		}
		caps := r.AgentCapabilities
		if caps == nil {
			caps = r.Capabilities
		}
		if r.AgentInfo.Name == "" {
			r.AgentInfo = r.Info
		}
		n.agent = Agent{ProtocolVersion: r.ProtocolVersion, Name: r.AgentInfo.Name,
			Version: r.AgentInfo.Version, Raw: append(json.RawMessage(nil), caps...)}
		n.agentKnown = true
		n.version.Store(int32(r.ProtocolVersion))
	case "session/new":
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(result, &r) == nil && r.SessionID != "" {
			n.sessions[r.SessionID] = Session{ID: r.SessionID, Cwd: req.cwd}
		}
	}
}
