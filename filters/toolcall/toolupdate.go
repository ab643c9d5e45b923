package toolcall

import (
	"fmt"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/rawjson"
)

// UpdatePath is where a session/update notification keeps its update.
var UpdatePath = []string{"params", "update"}

// At returns UpdatePath followed by keys.
func At(keys ...string) []string { return append([]string{"params", "update"}, keys...) }

// Update is a tool_call or tool_call_update, as spans of the message.
// Absent members are nil; a present null is the bytes "null".
type Update struct {
	Raw           []byte // params.update, a subslice of the message
	SessionUpdate string
	ID            string // toolCallId
	Status        string
	Kind          string
	Content       []byte
	Meta          []byte
	Term          TermMeta // the terminal-output extension's part of Meta
	RawInput      []byte
	RawOutput     []byte
	// Others counts the members besides sessionUpdate, toolCallId,
	// content and _meta: an update with none carries only output.
	Others int
}

// Final reports whether the update ends its call.
func (u *Update) Final() bool { return u.Status == "completed" || u.Status == "failed" }

// IsToolUpdate reports whether m is a tool_call or tool_call_update from the
// agent; it looks no further than the update's kind.
func IsToolUpdate(m *filters.Message) bool {
	if m.Dir != filters.AgentToClient {
		return false
	}
	k := m.UpdateKind()
	return k == "tool_call" || k == "tool_call_update"
}

// Of reads m when it is a tool_call or tool_call_update from the agent. It
// reads the update's kind itself, rather than through m.UpdateKind, to walk
// a large update once rather than twice.
func Of(m *filters.Message) (Update, bool) {
	if m.Dir != filters.AgentToClient || m.Method() != "session/update" {
		return Update{}, false
	}
	u, ok := Parse(m)
	return u, ok && (u.SessionUpdate == "tool_call" || u.SessionUpdate == "tool_call_update")
}

// Parse reads params.update of a session/update notification, which must
// be valid (m.Method() has parsed it). It reads the terminal-output
// extension's keys in _meta on the same walk, so that the output a large
// update streams is skipped once.
func Parse(m *filters.Message) (Update, bool) {
	if p, ok := m.Memo.(*parsed); ok {
		return p.u, p.ok
	}
	u, ok := parse(m)
	m.Memo = &parsed{u, ok}
	return u, ok
}

// parsed is Parse's result, kept in the message for the filters after the
// first that reads it: most filters read every tool update, and parsing
// one is most of what a filter does with a message it passes on.
type parsed struct {
	u  Update
	ok bool
}

func parse(m *filters.Message) (Update, bool) {
	raw := m.Update()
	if raw == nil {
		return Update{}, false
	}
	u := Update{Raw: raw}
	rawjson.TrustedWalk(raw, func(key []byte, vs int) (int, bool) {
		if rawjson.KeyIs(key, "_meta") {
			tm, end := parseTermMeta(raw[vs:])
			if end < 0 { // not an object
				end = rawjson.TrustedSkip(raw, vs) - vs
			}
			u.Meta, u.Term = raw[vs:vs+end], tm
			return vs + end, true
		}
		ve := rawjson.TrustedSkip(raw, vs)
		val := raw[vs:ve]
		switch {
		case rawjson.KeyIs(key, "sessionUpdate"):
			u.SessionUpdate, _ = rawjson.Unquote(val)
		case rawjson.KeyIs(key, "toolCallId"):
			u.ID, _ = rawjson.Unquote(val)
		case rawjson.KeyIs(key, "content"):
			u.Content = val
		default:
			u.Others++
			switch {
			case rawjson.KeyIs(key, "status"):
				u.Status, _ = rawjson.Unquote(val)
			case rawjson.KeyIs(key, "kind"):
				u.Kind, _ = rawjson.Unquote(val)
			case rawjson.KeyIs(key, "rawInput"):
				u.RawInput = val
			case rawjson.KeyIs(key, "rawOutput"):
				u.RawOutput = val
			}
		}
		return ve, true
	})
	return u, u.ID != ""
}

// EditUpdate returns the message with its update (u.Raw, a subslice of
// msg) replaced by what edit makes of it. Editing the update alone spares
// walking the rest of the message again, which matters for snapshots of
// hundreds of kilobytes.
func EditUpdate(msg []byte, u *Update, edit func(upd []byte) ([]byte, error)) ([]byte, error) {
	off := cap(msg) - cap(u.Raw)
	if len(u.Raw) == 0 || off < 0 || off+len(u.Raw) > len(msg) || &msg[off] != &u.Raw[0] {
		return nil, fmt.Errorf("update is not part of the message")
	}
	upd, err := edit(u.Raw)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(msg)-len(u.Raw)+len(upd))
	out = append(out, msg[:off]...)
	out = append(out, upd...)
	return append(out, msg[off+len(u.Raw):]...), nil
}
