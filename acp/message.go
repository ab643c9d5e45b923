package acp

import (
	"time"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Message is one line of one direction, with a view parsed on first use.
//
// Raw points into the relay's read buffer: a filter must not modify it, and
// must copy what it keeps past Apply.
type Message struct {
	Dir  Direction
	Raw  []byte    // the line, without its '\n'
	Time time.Time // when it was read (the recorded time in a replay)

	parsed  bool
	v       view
	checked int8 // 0: not yet known; 1: Checked; -1: not
	// tool is ToolUpdate's result, kept for every reader after the first:
	// most filters read every tool update, and reading one is most of
	// what a filter does with a message it passes on.
	tool *toolRead
	// headMethod is ReadMethodHead's result (head: 0 not yet read, 1 ok,
	// -1 not), kept for every reader after the first.
	headMethod []byte
	head       int8
}

// MethodAtHead is ReadMethodHead of the line, read once for all its
// readers: its method when the line begins with it, without a parse.
func (m *Message) MethodAtHead() ([]byte, bool) {
	if m.head == 0 {
		method, ok := ReadMethodHead(m.Raw)
		m.headMethod, m.head = method, 1
		if !ok {
			m.head = -1
		}
	}
	return m.headMethod, m.head > 0
}

// view is the top level of a JSON-RPC message, as spans of Raw.
type view struct {
	object                     bool // Raw is one JSON object, valid but for the contents of unchecked strings
	unchecked                  int  // strings whose contents were left unchecked (rawjson.SkipStructure)
	method                     string
	hasMethod, hasID           bool
	id, params, result, errorV []byte
	updateKind                 string
	updateParsed               bool
	sessionID                  string
	update                     []byte // params.update
}

// NewMessage returns a view of raw, read at t.
func NewMessage(dir Direction, raw []byte, t time.Time) *Message {
	return &Message{Dir: dir, Raw: raw, Time: t}
}

func (m *Message) parse() {
	if m.parsed {
		return
	}
	m.parsed = true
	v := &m.v
	raw := m.Raw
	// One pass over every byte, validating but for the contents of long
	// strings (Checked), which also reads the members of params that
	// filters look up in almost every message (sessionId, update), so that
	// no walk over a large update follows it.
	skip := func(s int) (int, error) { return rawjson.SkipStructure(raw, s, &v.unchecked) }
	end, err := rawjson.Walk(raw, 0, func(key []byte, vs int) (int, error) {
		var ve int
		var err error
		if rawjson.KeyIs(key, "params") {
			v.sessionID, v.update = "", nil // the last params counts
			if vs < len(raw) && raw[vs] == '{' {
				ve, err = rawjson.Walk(raw, vs, func(k []byte, s int) (int, error) {
					e, err := skip(s)
					switch {
					case err != nil:
					case rawjson.KeyIs(k, "sessionId"):
						v.sessionID, _ = rawjson.Unquote(raw[s:e])
					case rawjson.KeyIs(k, "update"):
						v.update = raw[s:e]
					}
					return e, err
				})
			} else {
				ve, err = skip(vs)
			}
		} else {
			ve, err = skip(vs)
		}
		if err != nil {
			return ve, err
		}
		val := raw[vs:ve]
		switch {
		case rawjson.KeyIs(key, "method"):
			v.hasMethod = true
			v.method, _ = rawjson.Unquote(val)
		case rawjson.KeyIs(key, "id"):
			v.hasID, v.id = true, val
		case rawjson.KeyIs(key, "params"):
			v.params = val
		case rawjson.KeyIs(key, "result"):
			v.result = val
		case rawjson.KeyIs(key, "error"):
			v.errorV = val
		}
		return ve, nil
	})
	// Walk validated the object; nothing may follow it.
	v.object = err == nil && len(rawjson.TrimSpace(raw[end:])) == 0
	if !v.object {
		*v = view{}
	}
}

// Valid reports whether the line is one JSON object, valid in every
// respect but maybe the contents of its strings of over
// rawjson.LongString bytes: where each ends is known, but not whether its
// escapes are. Anything else (batches, garbage, blank lines) is not for
// filters to touch. The contents of a long string are checked by whoever
// decodes them (rawjson.Unquote), and a line a filter writes is checked in
// full (Checked) before it leaves the chain, so a message that passes
// through unchanged, as most large ones do, is never scanned for escapes.
func (m *Message) Valid() bool { m.parse(); return m.v.object }

// Looked reports whether anyone has read the view yet (Valid, Method, …):
// whether Checked would finish a walk already made rather than make one.
func (m *Message) Looked() bool { return m.parsed || m.checked != 0 }

// Checked reports whether the line is one valid JSON object, the contents
// of every string included.
func (m *Message) Checked() bool {
	if m.checked == 0 {
		var ok bool
		if m.parsed { // only the unchecked strings are left to check
			ok = m.v.object && (m.v.unchecked == 0 || rawjson.Valid(m.Raw))
		} else { // one validating pass, rather than the view's and then one
			t := rawjson.TrimSpace(m.Raw)
			ok = len(t) > 0 && t[0] == '{' && rawjson.Valid(t)
		}
		m.checked = -1
		if ok {
			m.checked = 1
		}
	}
	return m.checked == 1
}

// Method is the JSON-RPC method, or "" for responses and invalid lines.
func (m *Message) Method() string { m.parse(); return m.v.method }

// ID is the raw JSON id ("7", `"abc"`, "null"), or nil if there is none.
func (m *Message) ID() []byte { m.parse(); return m.v.id }

// IsRequest reports a message with a method and an id.
func (m *Message) IsRequest() bool { m.parse(); return m.v.hasMethod && m.v.hasID }

// IsNotification reports a message with a method and no id.
func (m *Message) IsNotification() bool { m.parse(); return m.v.hasMethod && !m.v.hasID }

// IsResponse reports a message with an id and no method.
func (m *Message) IsResponse() bool { m.parse(); return !m.v.hasMethod && m.v.hasID }

// Params is the raw params value, or nil.
func (m *Message) Params() []byte { m.parse(); return m.v.params }

// Result is the raw result value of a response, or nil.
func (m *Message) Result() []byte { m.parse(); return m.v.result }

// Error is the raw error value of a response, or nil.
func (m *Message) Error() []byte { m.parse(); return m.v.errorV }

// UpdateKind is params.update.sessionUpdate of a session/update
// notification ("tool_call", "tool_call_update", …), or "".
func (m *Message) UpdateKind() string {
	if m.Method() != "session/update" {
		return ""
	}
	if !m.v.updateParsed {
		m.v.updateParsed = true
		if raw, ok := rawjson.TrustedGet(m.Update(), "sessionUpdate"); ok {
			m.v.updateKind, _ = rawjson.Unquote(raw)
		}
	}
	return m.v.updateKind
}

// SessionID is params.sessionId, or "".
func (m *Message) SessionID() string { m.parse(); return m.v.sessionID }

// Update is the raw value of params.update (a session/update's update),
// or nil.
func (m *Message) Update() []byte { m.parse(); return m.v.update }
