package filters

import (
	"bytes"
	"sync"

	"github.com/acp-proxy/acp-proxy/rawjson"
)

// maxCalls bounds the tool calls an output filter keeps state for. Calls
// end (status completed/failed) or their turn ends long before this; the
// bound is for agents that do neither.
const maxCalls = 128

// callList is the per tool call state of a filter, in the order the calls
// were first seen, which is the order held output is flushed in. It is used
// by the agent→client direction only.
type callList[T any] struct {
	items []callEntry[T]
}

type callEntry[T any] struct {
	id, session string
	v           *T
}

func (l *callList[T]) get(id string) *T {
	for i := range l.items {
		if l.items[i].id == id {
			return l.items[i].v
		}
	}
	return nil
}

func (l *callList[T]) len() int { return len(l.items) }

// add appends v for call id. When the list is full it first removes and
// returns the oldest call, for the caller to flush.
func (l *callList[T]) add(id, session string, v *T) (evicted *T) {
	if len(l.items) >= maxCalls {
		evicted = l.items[0].v
		l.items = append(l.items[:0], l.items[1:]...)
	}
	l.items = append(l.items, callEntry[T]{id, session, v})
	return evicted
}

func (l *callList[T]) remove(id string) {
	for i := range l.items {
		if l.items[i].id == id {
			l.items = append(l.items[:i], l.items[i+1:]...)
			return
		}
	}
}

// removeSession drops the calls of session.
func (l *callList[T]) removeSession(session string) {
	kept := l.items[:0]
	for _, e := range l.items {
		if e.session != session {
			kept = append(kept, e)
		}
	}
	clear(l.items[len(kept):])
	l.items = kept
}

// each calls fn for every call, oldest first.
func (l *callList[T]) each(fn func(v *T) error) error {
	for _, e := range l.items {
		if err := fn(e.v); err != nil {
			return err
		}
	}
	return nil
}

// prompts remembers the client's session/prompt requests, so the agent→client
// side knows when a turn ends (the response) and can free its calls' state.
// Both directions use it.
type prompts struct {
	mu  sync.Mutex
	ids map[string]string // raw request id → sessionId
}

// observe records a client→agent session/prompt request.
func (p *prompts) observe(m *Message) {
	if !m.IsRequest() {
		return
	}
	sid, ok := rawjson.GetString(m.Params(), "sessionId")
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[string]string{}
	}
	if len(p.ids) < 1024 { // a client that never gets answers must not grow this
		p.ids[string(m.ID())] = sid
	}
}

// ended reports the session whose prompt m (agent→client) answers.
func (p *prompts) ended(m *Message) (string, bool) {
	if bytes.HasPrefix(m.Raw, notificationStart) || !mentions(m.Raw, quotedStopReason) && !mentions(m.Raw, quotedError) {
		return "", false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 || !m.IsResponse() {
		return "", false
	}
	sid, ok := p.ids[string(m.ID())]
	if ok {
		delete(p.ids, string(m.ID()))
	}
	return sid, ok
}

// clientMode is what the client advertised about the extension.
type clientMode uint8

const (
	clientUnknown    clientMode = iota // no initialize seen: leave everything alone
	clientTranslated                   // no terminal_output: the proxy translates
	clientSpeaks                       // renders terminal_output(_delta) itself
)

// clientView is what an output filter remembers of the client, read once
// initialize has been seen.
type clientView struct {
	mode clientMode
	// key is the _meta key the client reads streamed output from:
	// terminal_output, or terminal_output_delta for a client that
	// advertised only that variant.
	key string
	// both: the client advertised both variants, so any key is fine.
	both bool
}

func (v *clientView) load(m *Message) clientMode {
	if v.mode != clientUnknown || m.Caps == nil {
		return v.mode
	}
	c, ok := m.Caps.Client()
	if !ok {
		return clientUnknown
	}
	switch {
	case c.TerminalOutput:
		v.mode, v.key, v.both = clientSpeaks, metaTerminalOutput, c.TerminalOutputDelta
	case c.TerminalOutputDelta:
		v.mode, v.key = clientSpeaks, metaTerminalOutputDelta
	default:
		v.mode = clientTranslated
	}
	return v.mode
}

// Strings whose absence from a line tells a filter, without parsing it,
// that the line is not its business: every message an output filter acts
// on contains one of them, as agents write JSON keys and values without
// escaping plain ASCII (a line that spelled them with \u escapes would be
// passed on unchanged).
var (
	quotedTerminal   = []byte(`"terminal`)    // terminal items and _meta keys
	quotedExecute    = []byte(`"execute"`)    // the kind of a call deltas keeps
	quotedStopReason = []byte(`"stopReason"`) // a session/prompt result
	quotedError      = []byte(`"error"`)      // an error response
	// How codex-acp and claude-agent-acp begin every notification and
	// request: not a response.
	notificationStart = []byte(`{"jsonrpc":"2.0","method":"`)
)

func mentions(raw, s []byte) bool { return bytes.Contains(raw, s) }
