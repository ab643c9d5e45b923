package filters

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/acp-proxy/acp-proxy/rawjson"
)

// This file holds what the terminal-output, deltas and persisted-output
// filters share: reading a tool_call / tool_call_update as spans of the raw
// message, the terminal-output extension's _meta keys, and the content items
// and messages the proxy builds itself.

// The terminal-output extension's _meta keys (ACP-NOTES §4).
const (
	metaTerminalInfo        = "terminal_info"
	metaTerminalOutput      = "terminal_output"
	metaTerminalOutputDelta = "terminal_output_delta"
	metaTerminalExit        = "terminal_exit"
)

// updatePath is where a session/update notification keeps its update.
var updatePath = []string{"params", "update"}

// at returns updatePath followed by keys.
func at(keys ...string) []string { return append([]string{"params", "update"}, keys...) }

// toolUpdate is a tool_call or tool_call_update, as spans of the message.
// Absent members are nil; a present null is the bytes "null".
type toolUpdate struct {
	raw           []byte // params.update, a subslice of the message
	sessionUpdate string
	id            string // toolCallId
	status        string
	kind          string
	content       []byte
	meta          []byte
	rawOutput     []byte
	// others counts the members besides sessionUpdate, toolCallId,
	// content and _meta: an update with none carries only output.
	others int
}

// final reports whether the update ends its call.
func (u *toolUpdate) final() bool { return u.status == "completed" || u.status == "failed" }

// isToolUpdate reports whether m is a tool_call or tool_call_update from the
// agent; it looks no further than the update's kind.
func isToolUpdate(m *Message) bool {
	if m.Dir != AgentToClient {
		return false
	}
	k := m.UpdateKind()
	return k == "tool_call" || k == "tool_call_update"
}

// toolUpdateOf reads m when it is a tool_call or tool_call_update from the
// agent. It reads the update's kind itself, rather than through
// m.UpdateKind, to walk a large update once rather than twice.
func toolUpdateOf(m *Message) (toolUpdate, bool) {
	if m.Dir != AgentToClient || m.Method() != "session/update" {
		return toolUpdate{}, false
	}
	u, ok := parseToolUpdate(m)
	return u, ok && (u.sessionUpdate == "tool_call" || u.sessionUpdate == "tool_call_update")
}

// parseToolUpdate reads params.update of a session/update notification,
// which must be valid (m.Method() has parsed it).
func parseToolUpdate(m *Message) (toolUpdate, bool) {
	raw, ok := trustedGet(m.Params(), "update")
	if !ok {
		return toolUpdate{}, false
	}
	u := toolUpdate{raw: raw}
	trustedMembers(raw, func(key, val []byte) bool {
		switch {
		case rawjson.KeyIs(key, "sessionUpdate"):
			u.sessionUpdate, _ = rawjson.Unquote(val)
		case rawjson.KeyIs(key, "toolCallId"):
			u.id, _ = rawjson.Unquote(val)
		case rawjson.KeyIs(key, "content"):
			u.content = val
		case rawjson.KeyIs(key, "_meta"):
			u.meta = val
		default:
			u.others++
			switch {
			case rawjson.KeyIs(key, "status"):
				u.status, _ = rawjson.Unquote(val)
			case rawjson.KeyIs(key, "kind"):
				u.kind, _ = rawjson.Unquote(val)
			case rawjson.KeyIs(key, "rawOutput"):
				u.rawOutput = val
			}
		}
		return true
	})
	return u, u.id != ""
}

// editUpdate returns the message with its update (u.raw, a subslice of
// msg) replaced by what edit makes of it. Editing the update alone spares
// walking the rest of the message again, which matters for snapshots of
// hundreds of kilobytes.
func editUpdate(msg []byte, u *toolUpdate, edit func(upd []byte) ([]byte, error)) ([]byte, error) {
	off := cap(msg) - cap(u.raw)
	if len(u.raw) == 0 || off < 0 || off+len(u.raw) > len(msg) || &msg[off] != &u.raw[0] {
		return nil, fmt.Errorf("update is not part of the message")
	}
	upd, err := edit(u.raw)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(msg)-len(u.raw)+len(upd))
	out = append(out, msg[:off]...)
	out = append(out, upd...)
	return append(out, msg[off+len(u.raw):]...), nil
}

// termMeta is the terminal-output extension's part of an update's _meta.
type termMeta struct {
	info, output, outputDelta, exit []byte // raw values, nil when absent
	others                          int    // other _meta keys
}

func (t termMeta) any() bool {
	return t.info != nil || t.output != nil || t.outputDelta != nil || t.exit != nil
}

func parseTermMeta(meta []byte) termMeta {
	var t termMeta
	if meta == nil {
		return t
	}
	trustedMembers(meta, func(key, val []byte) bool {
		switch {
		case rawjson.KeyIs(key, metaTerminalInfo):
			t.info = val
		case rawjson.KeyIs(key, metaTerminalOutput):
			t.output = val
		case rawjson.KeyIs(key, metaTerminalOutputDelta):
			t.outputDelta = val
		case rawjson.KeyIs(key, metaTerminalExit):
			t.exit = val
		default:
			t.others++
		}
		return true
	})
	return t
}

// terminalID is the terminal_id of an extension value, or "".
func terminalID(val []byte) string {
	s, _ := rawjson.GetString(val, "terminal_id")
	return s
}

// stripTermMeta deletes the extension's keys from the _meta of the object
// at base in msg, and _meta itself when nothing else is left in it.
func stripTermMeta(msg []byte, base []string, t termMeta) ([]byte, error) {
	path := func(keys ...string) []string { return append(append([]string(nil), base...), keys...) }
	var err error
	for _, k := range []string{metaTerminalInfo, metaTerminalOutput, metaTerminalOutputDelta, metaTerminalExit} {
		if msg, _, err = rawjson.Delete(msg, path("_meta", k)...); err != nil {
			return nil, err
		}
	}
	if t.others == 0 {
		msg, _, err = rawjson.Delete(msg, path("_meta")...)
	}
	return msg, err
}

// termData is the output an update streams, decoded: the data of
// terminal_output, then of terminal_output_delta.
func termData(t termMeta) ([]byte, error) {
	var out []byte
	for _, v := range [...][]byte{t.output, t.outputDelta} {
		if v == nil {
			continue
		}
		raw, ok := rawjson.Get(v, "data")
		if !ok || rawjson.IsNull(raw) {
			continue
		}
		s, err := rawjson.Unquote(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// rawOutputText is the command output an agent reports when a call ends:
// claude's rawOutput string, or codex's aggregated_output (stdout and
// stderr interleaved), else stdout followed by stderr. codex's
// formatted_output is truncated and never used.
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
	out, ok := rawjson.GetString(raw, "stdout")
	if errs, eok := rawjson.GetString(raw, "stderr"); eok {
		out += errs
		ok = true
	}
	return out, ok
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
func fenceFor(m *Message) fence {
	if m.Caps != nil {
		if a, ok := m.Caps.Agent(); ok && strings.Contains(a.Name, "claude") {
			return fenceClaude
		}
	}
	return fenceCodex
}

// quote returns output fenced with f as a JSON string, or nil when there
// is no output.
func (f fence) quote(output []byte) []byte {
	if len(output) == 0 {
		return nil
	}
	return rawjson.AppendQuote(nil, f.open+string(bytes.TrimRight(output, "\n"))+f.close)
}

// hasTerminalItem reports whether the content array holds a terminal item
// whose terminalId ours accepts.
func hasTerminalItem(content []byte, ours func(string) bool) bool {
	found := false
	trustedElements(content, func(el []byte) bool {
		if typ, tid := member2(el, "type", "terminalId"); string(typ) == `"terminal"` {
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
	trustedElements(content, func(el []byte) bool {
		if typ, tid := member2(el, "type", "terminalId"); string(typ) == `"terminal"` {
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
