package telemetry

import (
	"bytes"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// updatePrefix is how every agent begins a session/update, up to the
// session's id; the update follows it, beginning with its sessionUpdate
// (or, for claude-agent-acp's tool updates, with _meta).
var (
	updatePrefix     = []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"`)
	updateAfterID    = []byte(`","update":`)
	keySessionUpdate = []byte(`{"sessionUpdate":"`)
	toolCallKind     = []byte(`tool_call`)
)

// updateHead reads the head of line when it begins as every agent begins a
// session/update: its session's id, where its update starts, and whether
// that is a tool call's (its kind is tool_call…, or it does not begin with
// its kind). ok is false for a line of any other shape, which the tap
// reads whole. It reads the head only, not the line.
func updateHead(line []byte) (sid []byte, update int, tool, ok bool) {
	if !bytes.HasPrefix(line, updatePrefix) {
		return nil, 0, false, false
	}
	rest := line[len(updatePrefix):]
	k := bytes.IndexByte(rest[:min(len(rest), 256)], '"')
	if k < 0 || bytes.IndexByte(rest[:k], '\\') >= 0 || !bytes.HasPrefix(rest[k:], updateAfterID) {
		return nil, 0, false, false
	}
	sid, update = rest[:k], len(updatePrefix)+k+len(updateAfterID)
	rest = line[update:]
	if !bytes.HasPrefix(rest, keySessionUpdate) {
		return sid, update, true, true
	}
	return sid, update, bytes.HasPrefix(rest[len(keySessionUpdate):], toolCallKind), true
}

// outputOnly is the call id of the tool update that starts at
// line[update], when it is a tool_call_update that carries nothing but
// output (content, _meta's terminal output; no status, no exit): a span
// only counts it. It validates the update's structure, then walks it
// once, skipping each string with a memchr.
func outputOnly(line []byte, update int) (id string, ok bool) {
	var unchecked int
	end, err := rawjson.SkipStructure(line, update, &unchecked)
	if err != nil {
		return "", false
	}
	obj := line[update:end]
	only, tcu := true, false
	walked := rawjson.TrustedWalk(obj, func(key []byte, vs int) (int, bool) {
		var ve int
		switch {
		case rawjson.KeyIs(key, "_meta"):
			ve = vs + rawjson.TrustedWalk(obj[vs:], func(k []byte, s int) (int, bool) {
				only = only && !rawjson.KeyIs(k, "terminal_exit")
				return rawjson.TrustedSkip(obj[vs:], s), true
			})
		case rawjson.KeyIs(key, "sessionUpdate"):
			ve = rawjson.TrustedSkip(obj, vs)
			tcu = string(obj[vs:ve]) == `"tool_call_update"`
		case rawjson.KeyIs(key, "toolCallId"):
			ve = rawjson.TrustedSkip(obj, vs)
			id, _ = rawjson.Unquote(obj[vs:ve])
		case rawjson.KeyIs(key, "content"):
			ve = rawjson.TrustedSkip(obj, vs)
		default:
			only = false
		}
		return ve, only
	})
	if walked <= 0 || !only || !tcu || id == "" {
		return "", false
	}
	return id, true
}
