package output

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Output the proxy shows a client: fenced text, content items with the
// terminal replaced, and the messages the filters build themselves.

// rawOutputText is the command output an agent reports when a call ends:
// claude's rawOutput string, or codex's aggregated_output (stdout and
// stderr interleaved), or cline's list of results, else stdout followed by
// stderr. codex's formatted_output is truncated and never used.
func rawOutputText(raw []byte) (string, bool) {
	if raw == nil {
		return "", false
	}
	if s, err := rawjson.Unquote(raw); err == nil {
		return s, true
	}
	if s, ok := rawjson.GetString(raw, "aggregated_output"); ok {
		return s, true
	}
	if s, ok := commandResults(raw); ok {
		return s, true
	}
	out, ok := rawjson.GetString(raw, "stdout")
	if errs, eok := rawjson.GetString(raw, "stderr"); eok {
		out += errs
		ok = true
	}
	return out, ok
}

// commandResults is the output in the rawOutput of cline's run_commands
// (docs/agents.md): an array with one {query, result, success} per
// command, query the command and result all it printed. The results are
// joined in order; anything else in the array and it is not that shape.
func commandResults(raw []byte) (string, bool) {
	raw = rawjson.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return "", false
	}
	var b strings.Builder
	n, other := 0, false
	err := rawjson.Elements(raw, func(_ int, el []byte) bool {
		_, isQuery := rawjson.GetString(el, "query")
		result, isResult := rawjson.GetString(el, "result")
		if other = !isQuery || !isResult; other {
			return false
		}
		b.WriteString(result)
		n++
		return true
	})
	if err != nil || other || n == 0 {
		return "", false
	}
	return b.String(), true
}

// rawOutputEscaped is rawOutputText as JSON string bytes (escaped, without
// the quotes): the bytes of the message itself when the output is one
// string there, so that it need not be decoded.
func rawOutputEscaped(raw []byte) ([]byte, bool) {
	if raw == nil {
		return nil, false
	}
	str := func(v []byte) ([]byte, bool) {
		v = bytes.TrimSpace(v)
		if len(v) < 2 || v[0] != '"' {
			return nil, false
		}
		return v[1 : len(v)-1], true
	}
	if s, ok := str(raw); ok {
		return s, true
	}
	if v, ok := rawjson.Get(raw, "aggregated_output"); ok {
		if s, ok := str(v); ok {
			return s, true
		}
	}
	s, ok := rawOutputText(raw)
	if !ok {
		return nil, false
	}
	return rawjson.Escape(s), true
}

// fence is how an agent shows command output as markdown when the client
// has no terminal: codex-acp writes "```sh\n" + output without its trailing
// newlines + "\n```\n"; claude-agent-acp the same with "console" and no
// newline after the closing fence.
type fence struct{ open, close string }

var (
	fenceCodex  = fence{"```sh\n", "\n```\n"}
	fenceClaude = fence{"```console\n", "\n```"}
)

// fenceFor picks the agent's own fence, by the name it gave in initialize.
func fenceFor(m *filters.Message) fence {
	if m.Caps != nil {
		if a, ok := m.Caps.Agent(); ok && strings.Contains(a.Name, "claude") {
			return fenceClaude
		}
	}
	return fenceCodex
}

// quoteEscaped returns output, given as JSON string bytes, fenced with f as
// a JSON string, or nil when there is no output.
func (f fence) quoteEscaped(esc []byte) []byte {
	if len(esc) == 0 {
		return nil
	}
	open, closing := rawjson.Quote(f.open), rawjson.Quote(f.close)
	dst := append(open[:len(open)-1:len(open)-1], rawjson.TrimNewlines(esc)...)
	return append(dst, closing[1:]...)
}

// hasTerminalItem reports whether the content array holds a terminal item
// whose terminalId ours accepts.
func hasTerminalItem(content []byte, ours func(string) bool) bool {
	found := false
	rawjson.TrustedElements(content, func(el []byte) bool {
		if typ, tid := rawjson.TrustedGetPair(el, "type", "terminalId"); string(typ) == `"terminal"` {
			s, _ := rawjson.Unquote(tid)
			found = ours(s)
		}
		return !found
	})
	return found
}

// renderContent returns the content array with its terminal items that ours
// accepts replaced: the first by a text item showing quoted (a JSON
// string), the others dropped, as is the first when quoted is nil. Every
// other item is kept as it is. A nil content is an array of the text item.
func renderContent(content []byte, ours func(string) bool, quoted []byte) ([]byte, error) {
	out := []byte{'['}
	placed := false
	add := func(el []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, el...)
	}
	text := func() {
		if !placed && quoted != nil {
			add(appendTextItem(nil, quoted))
		}
		placed = true
	}
	if content == nil {
		text()
		return append(out, ']'), nil
	}
	if c := bytes.TrimSpace(content); len(c) == 0 || c[0] != '[' {
		return nil, fmt.Errorf("content is not an array")
	}
	rawjson.TrustedElements(content, func(el []byte) bool {
		if typ, tid := rawjson.TrustedGetPair(el, "type", "terminalId"); string(typ) == `"terminal"` {
			if s, _ := rawjson.Unquote(tid); ours(s) {
				text()
				return true
			}
		}
		add(el)
		return true
	})
	return append(out, ']'), nil
}

// appendTextItem appends a tool call content item showing the JSON string
// quoted.
func appendTextItem(dst, quoted []byte) []byte {
	dst = append(dst, `{"type":"content","content":{"type":"text","text":`...)
	dst = append(dst, quoted...)
	return append(dst, "}}"...)
}

// buildToolUpdate builds a tool_call_update notification for a call with
// one member after its id: key with the raw JSON val.
func buildToolUpdate(sessionID, callID, key string, val []byte) []byte {
	dst := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`)
	dst = rawjson.AppendQuote(dst, sessionID)
	dst = append(dst, `,"update":{"sessionUpdate":"tool_call_update","toolCallId":`...)
	dst = rawjson.AppendQuote(dst, callID)
	dst = append(dst, ',')
	dst = rawjson.AppendQuote(dst, key)
	dst = append(dst, ':')
	dst = append(dst, val...)
	return append(dst, "}}}"...)
}

// wrapMember returns {"key":val}.
func wrapMember(key string, val []byte) []byte {
	dst := rawjson.AppendQuote([]byte{'{'}, key)
	dst = append(dst, ':')
	dst = append(dst, val...)
	return append(dst, '}')
}

// appendTermValue appends {"terminal_id":…,"data":…}, data a JSON string.
func appendTermValue(dst []byte, tid string, data []byte) []byte {
	dst = append(dst, `{"terminal_id":`...)
	dst = rawjson.AppendQuote(dst, tid)
	dst = append(dst, `,"data":`...)
	dst = append(dst, data...)
	return append(dst, '}')
}
