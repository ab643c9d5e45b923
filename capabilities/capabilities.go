// Package capabilities is what the proxy knows of one connection: what the
// client and the agent negotiated in initialize, the sessions they opened,
// and the client's requests the filters and the view wait on (initialize,
// session/new, session/load, session/resume, session/prompt) until their
// responses. Negotiated is that one tracker; the chain feeds it every
// message as it arrived (Observe) before any filter runs.
//
// It records what the client itself advertised, before any filter changed
// the request: a filter that injects the terminal_output capability on the
// client's behalf must still know that the client cannot render it.
package capabilities

import (
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/acp-proxy/acp-proxy/acp"
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
// call New. It is safe for concurrent use by both directions. Its queries
// may be asked of a nil *Negotiated, which knows nothing.
type Negotiated struct {
	mu          sync.RWMutex
	client      Client
	clientKnown bool
	agent       Agent
	agentKnown  bool
	sessions    map[string]Session
	opened      []string // the sessions' ids, the one opened or loaded longest ago first
	// requests are the client's followed requests until their responses;
	// the last one answered is what Answered tells the filters while they
	// handle its response.
	requests acp.Requests[*Request]
	loading  map[string]int // sessionId → its session/load requests in flight
	// version is the protocol version in force: the agent's answer to
	// initialize, or until then the version the client asked for; 0 before
	// initialize. Atomic, because the chain reads it for every message.
	version atomic.Int32
}

// New returns an empty Negotiated.
func New() *Negotiated {
	return &Negotiated{sessions: map[string]Session{}, requests: acp.Requests[*Request]{Max: maxInFlight}, loading: map[string]int{}}
}

// ProtocolVersion is the connection's ACP protocol version: what the agent
// answered to initialize, or, until it has, what the client asked for; 0
// when no initialize was seen (or its version was not an integer).
func (n *Negotiated) ProtocolVersion() int {
	if n == nil {
		return 0
	}
	return int(n.version.Load())
}

// Client returns what the client advertised, and whether initialize was seen.
func (n *Negotiated) Client() (Client, bool) {
	if n == nil {
		return Client{}, false
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.client, n.clientKnown
}

// Agent returns the agent's initialize result, and whether it was seen.
func (n *Negotiated) Agent() (Agent, bool) {
	if n == nil {
		return Agent{}, false
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.agent, n.agentKnown
}

// Session returns what is known of session id.
func (n *Negotiated) Session(id string) (Session, bool) {
	if n == nil {
		return Session{}, false
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	s, ok := n.sessions[id]
	return s, ok
}

// maxSessions bounds the sessions whose directory is kept, as maxInFlight
// bounds the requests: a client may load any number of sessions over one
// connection. Past it, the session opened or loaded longest ago is
// forgotten; a filter then stands aside for it, as for a session it never
// saw opened.
const maxSessions = maxInFlight

// keepSession records s (under mu), forgetting the session opened or
// loaded longest ago when there are too many.
func (n *Negotiated) keepSession(s Session) {
	if _, ok := n.sessions[s.ID]; ok {
		n.opened = slices.DeleteFunc(n.opened, func(id string) bool { return id == s.ID })
	}
	n.sessions[s.ID] = s
	n.opened = append(n.opened, s.ID)
	for len(n.opened) > maxSessions {
		delete(n.sessions, n.opened[0])
		n.opened = n.opened[1:]
	}
}

// Cwd is the directory the client gave session id (session/new,
// session/load or session/resume), or "".
func (n *Negotiated) Cwd(id string) string {
	s, _ := n.Session(id)
	return s.Cwd
}
