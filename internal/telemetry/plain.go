package telemetry

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// countOnly reports whether line, read in direction d, is a message a span
// only counts, read from its head (see acp.ReadUpdateHead, clientHead), and
// for an agent's update its session's id (and its call's, for a call's
// output).
func countOnly(d acp.Direction, line []byte) (sid []byte, id string, ok bool) {
	if d == acp.ClientToAgent {
		return nil, "", clientHead(line)
	}
	h, ok := acp.ReadUpdateHead(line)
	switch {
	case !ok:
		return nil, "", false
	case !h.ToolCall():
		return h.SessionID, "", true
	}
	id, ok = outputOnly(line, h.Update)
	return h.SessionID, id, ok
}

// notificationPrefix is how a notification begins, as every peer writes
// it; a request may begin so too (most write their id first).
var notificationPrefix = []byte(`{"jsonrpc":"2.0","method":"`)

// clientHead reports whether line, from the client, begins as a
// notification of a method the tap does not follow (all but initialize,
// session/new, /load, /resume, /prompt, /close and /delete): only counted.
// A request of such a method that writes its method first is counted too:
// the tap follows no request of it.
func clientHead(line []byte) bool {
	if !bytes.HasPrefix(line, notificationPrefix) {
		return false
	}
	rest := line[len(notificationPrefix):]
	k := bytes.IndexByte(rest[:min(len(rest), 64)], '"')
	if k < 0 {
		return false
	}
	switch string(rest[:k]) {
	case "initialize", "session/close", "session/delete":
		return false
	}
	return !spanned(string(rest[:k]))
}

// outputOnly is the call id of the tool update that starts at
// line[update], when it is a tool_call_update that carries nothing but
// output (content, _meta's terminal output; no status, no exit): a span
// only counts it. It walks the update once, skipping each string with a
// memchr and validating nothing: a damaged line is only misread (and then
// read whole by the tap), never a panic.
func outputOnly(line []byte, update int) (id string, ok bool) {
	only, tcu := true, false
	end := members(line, update, func(key []byte, vs int) int {
		if string(key) == "_meta" { // walked once, its keys read on the way
			return members(line, vs, func(k []byte, s int) int {
				only = only && string(k) != "terminal_exit"
				return skipValue(line, s)
			})
		}
		ve := skipValue(line, vs)
		if ve < 0 {
			return ve
		}
		switch val := line[vs:ve]; string(key) {
		case "sessionUpdate":
			tcu = string(val) == `"tool_call_update"`
		case "toolCallId":
			var err error
			id, err = rawjson.Unquote(val)
			only = only && err == nil
		case "content":
		default:
			only = false
		}
		return ve
	})
	if end < 0 || !only || !tcu || id == "" {
		return "", false
	}
	return id, true
}

// members calls enter with the raw key (between its quotes, as written)
// and the index where the value starts of each member of the object at
// b[i]; enter returns the index past the value (-1: not one). members
// returns the index past the object, or -1 where b is not one there.
// Nothing is validated but where strings and values end.
func members(b []byte, i int, enter func(key []byte, vs int) int) int {
	if i = blanks(b, i); i >= len(b) || b[i] != '{' {
		return -1
	}
	for i = blanks(b, i+1); i < len(b) && b[i] == '"'; {
		ke := rawjson.StringEnd(b, i)
		if ke < 0 {
			return -1
		}
		vs := blanks(b, ke)
		if vs >= len(b) || b[vs] != ':' {
			return -1
		}
		ve := enter(b[i+1:ke-1], blanks(b, vs+1))
		if ve < 0 {
			return -1
		}
		if i = blanks(b, ve); i < len(b) && b[i] == ',' {
			i = blanks(b, i+1)
		}
	}
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	return -1
}

func blanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipValue is the index past the value at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return rawjson.StringEnd(b, i)
	case '{', '[':
		for depth := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = rawjson.StringEnd(b, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}
