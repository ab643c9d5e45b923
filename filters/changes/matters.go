package changes

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// matters reports whether the agent's line raw may concern the filter,
// read from its bytes alone, before anything parses it: it has no
// "method" key (a response, which may end a turn), or a key the filter
// reads (a call's status, content, title, kind or rawInput; a permission
// request's toolCall), unless a sessionUpdate before them says the update
// is not a tool call's (an agent's message chunk has content too). A
// command's output streamed in _meta has none of them, and costs one pass
// of IndexByte over its strings. A key written with escapes is not seen:
// a line of that agent is left alone.
func matters(raw []byte) bool {
	method := false
	for i := 0; ; {
		j := bytes.IndexByte(raw[i:], '"')
		if j < 0 {
			return !method
		}
		start := i + j + 1
		end := stringEnd(raw, start)
		if end < 0 {
			return true // not JSON as far as it goes: the slow path decides
		}
		if isKey(raw, end+1) {
			switch string(raw[start:end]) {
			case "method":
				method = true
			case "sessionUpdate":
				if v := stringValue(raw, end+1); v != nil && !bytes.HasPrefix(v, []byte("tool_call")) {
					return false
				}
			case "status", "content", "title", "kind", "rawInput", "toolCall":
				return true
			}
		}
		i = end + 1
	}
}

// stringEnd is the index of the quote that ends the JSON string whose text
// starts at start, or -1.
func stringEnd(raw []byte, start int) int {
	if e := rawjson.StringEnd(raw, start-1); e >= 0 {
		return e - 1
	}
	return -1
}

// isKey reports whether the string that ends before i is a key: a colon
// follows it.
func isKey(raw []byte, i int) bool {
	for ; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

// stringValue is the text of the string value after the colon that
// follows i, when it is a string without escapes; else nil.
func stringValue(raw []byte, i int) []byte {
	i = bytes.IndexByte(raw[i:], ':') + i + 1
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	if i >= len(raw) || raw[i] != '"' {
		return nil
	}
	end := stringEnd(raw, i+1)
	if end < 0 || bytes.IndexByte(raw[i+1:end], '\\') >= 0 {
		return nil
	}
	return raw[i+1 : end]
}
