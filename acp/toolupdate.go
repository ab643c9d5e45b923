package acp

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// ToolUpdate is a tool_call or tool_call_update, as spans of the message.
// Absent members are nil; a present null is the bytes "null".
type ToolUpdate struct {
	Raw           []byte // params.update, a subslice of the message
	SessionUpdate string
	ID            string // toolCallId
	Title         string
	Status        string
	Kind          string
	Content       []byte
	Locations     []byte
	Meta          []byte
	Term          TermMeta // the terminal-output extension's part of Meta
	RawInput      []byte
	RawOutput     []byte
	// Others counts the members besides sessionUpdate, toolCallId,
	// content and _meta: an update with none carries only output.
	Others int

	// order lists the Members read, as the update carries them.
	order  [maxOrder]Member
	nOrder uint8
}

// Member names a member of a tool update that ToolUpdate reads besides
// sessionUpdate and toolCallId.
type Member uint8

const (
	MemberTitle Member = iota + 1
	MemberKind
	MemberStatus
	MemberContent
	MemberLocations
	MemberRawInput
	MemberRawOutput
	MemberMeta
)

// maxOrder bounds Order: an update that repeats keys past it has the
// repeats read (the last one counts) but not listed.
const maxOrder = 12

// Order lists the Members the update carries, in the order it carries
// them (a member set to null included): what a reader that shows an
// update's fields (the view's one-line description) shows, and in the
// agent's order. The string members (Title, Status, Kind) are "" both
// when absent and when null or empty; Order tells those apart.
func (u *ToolUpdate) Order() []Member { return u.order[:u.nOrder] }

// saw appends k to Order.
func (u *ToolUpdate) saw(k Member) {
	if int(u.nOrder) < maxOrder {
		u.order[u.nOrder] = k
		u.nOrder++
	}
}

// Final reports whether the update ends its call.
func (u *ToolUpdate) Final() bool { return u.Status == "completed" || u.Status == "failed" }

// IsToolUpdate reports whether m is a tool_call or tool_call_update from the
// agent; it looks no further than the update's kind.
func (m *Message) IsToolUpdate() bool {
	if m.Dir != AgentToClient {
		return false
	}
	k := m.UpdateKind()
	return k == "tool_call" || k == "tool_call_update"
}

// ToolUpdate reads m when it is a tool_call or tool_call_update from the
// agent. It reads the update's kind itself, rather than through
// UpdateKind, to walk a large update once rather than twice, and it reads
// the terminal-output extension's keys in _meta on the same walk, so that
// the output a large update streams is skipped once.
func (m *Message) ToolUpdate() (ToolUpdate, bool) {
	if m.Dir != AgentToClient || m.Method() != "session/update" {
		return ToolUpdate{}, false
	}
	if m.tool == nil {
		u, ok := readToolUpdate(m.Update())
		m.tool = &toolRead{u, ok}
	}
	u, ok := m.tool.u, m.tool.ok
	return u, ok && (u.SessionUpdate == "tool_call" || u.SessionUpdate == "tool_call_update")
}

// toolRead is what ToolUpdate read, kept in the message.
type toolRead struct {
	u  ToolUpdate
	ok bool
}

// readToolUpdate reads params.update of a valid session/update.
func readToolUpdate(raw []byte) (ToolUpdate, bool) {
	if raw == nil {
		return ToolUpdate{}, false
	}
	u, _ := walkToolUpdate(raw)
	return u, u.ID != ""
}

// walkToolUpdate reads the update object that begins raw, trusting it to
// be JSON, and returns where it ends (past its '}'; -1: raw begins with no
// object).
func walkToolUpdate(raw []byte) (ToolUpdate, int) {
	u := ToolUpdate{Raw: raw}
	end := rawjson.TrustedWalk(raw, func(key []byte, vs int) (int, bool) {
		if rawjson.KeyIs(key, "_meta") {
			tm, end := parseTermMeta(raw[vs:])
			if end < 0 { // not an object
				end = rawjson.TrustedSkip(raw, vs) - vs
			}
			u.Meta, u.Term = raw[vs:vs+end], tm
			u.saw(MemberMeta)
			return vs + end, true
		}
		ve := rawjson.TrustedSkip(raw, vs)
		u.read(key, raw[vs:ve])
		return ve, true
	})
	return u, end
}

// closeParams is what follows a session/update's update: the ends of its
// params and of the message.
var closeParams = []byte("}}")

// ReadToolUpdateAt reads the tool call or update of line, an agent's
// session/update whose head h was read (ReadUpdateHead), as ToolUpdate
// does, without parsing the line first: one walk over the update, which
// it trusts to be JSON, as the head is. ok is false unless the update is a
// tool call's, ends as an object and only the ends of params and of the
// message follow it. What a filter keeps of an update read this way it
// checks when it sends it again (a line can be cut or garbled anywhere).
func ReadToolUpdateAt(line []byte, h UpdateHead) (u ToolUpdate, ok bool) {
	if !h.ToolCall() || h.Update <= 0 || h.Update >= len(line) {
		return ToolUpdate{}, false
	}
	obj := line[h.Update:]
	u, end := walkToolUpdate(obj)
	if end <= 0 || obj[end-1] != '}' || !bytes.Equal(rawjson.TrimSpace(obj[end:]), closeParams) {
		return ToolUpdate{}, false
	}
	u.Raw = obj[:end]
	return u, u.ID != "" && (u.SessionUpdate == "tool_call" || u.SessionUpdate == "tool_call_update")
}

// read takes one member of the update other than _meta, and counts it in
// Others unless it is sessionUpdate, toolCallId or content.
func (u *ToolUpdate) read(key, val []byte) {
	switch {
	case rawjson.KeyIs(key, "sessionUpdate"):
		u.SessionUpdate, _ = rawjson.Unquote(val)
		return
	case rawjson.KeyIs(key, "toolCallId"):
		u.ID, _ = rawjson.Unquote(val)
		return
	case rawjson.KeyIs(key, "content"):
		u.Content = val
		u.saw(MemberContent)
		return
	case rawjson.KeyIs(key, "title"):
		u.Title, _ = rawjson.Unquote(val)
		u.saw(MemberTitle)
	case rawjson.KeyIs(key, "status"):
		u.Status, _ = rawjson.Unquote(val)
		u.saw(MemberStatus)
	case rawjson.KeyIs(key, "kind"):
		u.Kind, _ = rawjson.Unquote(val)
		u.saw(MemberKind)
	case rawjson.KeyIs(key, "locations"):
		u.Locations = val
		u.saw(MemberLocations)
	case rawjson.KeyIs(key, "rawInput"):
		u.RawInput = val
		u.saw(MemberRawInput)
	case rawjson.KeyIs(key, "rawOutput"):
		u.RawOutput = val
		u.saw(MemberRawOutput)
	}
	u.Others++
}

// PermissionCall reads the tool call a session/request_permission shows
// (params.toolCall) with the same reader as ToolUpdate: Raw is the toolCall
// object, and its ID, Title, _meta and the rest as in an update. ok is
// false when m is no permission request or its toolCall is no object.
func (m *Message) PermissionCall() (ToolUpdate, bool) {
	if m.Method() != "session/request_permission" {
		return ToolUpdate{}, false
	}
	tc, ok := rawjson.TrustedGet(m.Params(), "toolCall")
	if !ok || len(tc) == 0 || tc[0] != '{' {
		return ToolUpdate{}, false
	}
	u, _ := readToolUpdate(tc)
	return u, true
}
