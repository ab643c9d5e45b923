package acp

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// UpdateHead is what the head of an agent's session/update says, read
// from its bytes before any parse (ReadUpdateHead).
type UpdateHead struct {
	// SessionID is the session's id as written (it holds no escape).
	SessionID []byte
	// Update is where the update's object starts in the line.
	Update int
	// Kind is the update's sessionUpdate when the update begins with it,
	// as written (no escape); nil when it begins otherwise
	// (claude-agent-acp begins its tool updates with _meta).
	Kind []byte
	// Len is how much of the line the head is: through the kind's closing
	// quote, or to the update's start when it does not begin with its kind.
	// Another line that begins with the same Len bytes has the same head.
	Len int
}

// methodHead is how agents, and many clients, begin a request or a
// notification: with its method.
const methodHead = `{"jsonrpc":"2.0","method":"`

var methodStart = []byte(methodHead)

// BeginsWithMethod reports whether line begins as agents begin every
// request and notification, with its method (methodHead): it is not a
// response, whatever follows.
func BeginsWithMethod(line []byte) bool { return bytes.HasPrefix(line, methodStart) }

// The head every agent writes a session/update with, up to its session's
// id; the update follows the id, most often beginning with its kind.
var (
	updateStart   = []byte(methodHead + `session/update","params":{"sessionId":"`)
	updateAfterID = []byte(`","update":`)
	kindKey       = []byte(`{"sessionUpdate":"`)
)

// ReadUpdateHead reads the head of line when it begins as every agent
// begins a session/update; ok is false for a line of any other shape
// (then nothing is known of it). It reads the head only, never the text
// after it, so a text chunk costs a few bytes' comparison, whatever its
// length. It takes keys and values to be written without escapes, as
// agents write them; an id or kind with a backslash is not read.
func ReadUpdateHead(line []byte) (h UpdateHead, ok bool) {
	if !bytes.HasPrefix(line, updateStart) {
		return h, false
	}
	rest := line[len(updateStart):]
	k := bytes.IndexByte(rest[:min(len(rest), 256)], '"')
	if k < 0 || bytes.IndexByte(rest[:k], '\\') >= 0 || !bytes.HasPrefix(rest[k:], updateAfterID) {
		return h, false
	}
	h.SessionID, h.Update = rest[:k], len(updateStart)+k+len(updateAfterID)
	h.Len = h.Update
	rest = line[h.Update:]
	if !bytes.HasPrefix(rest, kindKey) {
		return h, true
	}
	rest = rest[len(kindKey):]
	if e := bytes.IndexByte(rest[:min(len(rest), 64)], '"'); e >= 0 && bytes.IndexByte(rest[:e], '\\') < 0 {
		h.Kind = rest[:e]
		h.Len = h.Update + len(kindKey) + e + 1
	}
	return h, true
}

// TextChunk reports whether the update is a message, thought or user
// chunk: a piece of text, about no tool call, whatever its text says.
func (h UpdateHead) TextChunk() bool {
	switch string(h.Kind) {
	case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
		return true
	}
	return false
}

// ToolCall reports whether the update may be a tool call's: its kind is
// tool_call…, or it does not begin with its kind.
func (h UpdateHead) ToolCall() bool {
	return h.Kind == nil || bytes.HasPrefix(h.Kind, []byte("tool_call"))
}

var quotedMethod = []byte(`"method"`)

// ReadMethodHead reads the method of line from its head, when line begins
// with it (methodHead), written without escapes, and names no "method"
// after it (of a repeated key, a parse reads the last): a reader that
// needs a line only for some methods knows, without parsing it, that it
// does not need this one. ok is false for any other line. It does not say
// the line is valid JSON: a parse may yet find it is not, and no method.
func ReadMethodHead(line []byte) (method []byte, ok bool) {
	if !BeginsWithMethod(line) {
		return nil, false
	}
	rest := line[len(methodStart):]
	e := bytes.IndexByte(rest[:min(len(rest), 128)], '"')
	if e < 0 || bytes.IndexByte(rest[:e], '\\') >= 0 || rawjson.Contains(rest[e+1:], quotedMethod) {
		return nil, false
	}
	return rest[:e], true
}
