package toolcall

import "github.com/acp-proxy/acp-proxy/rawjson"

// The terminal-output extension's _meta keys (docs/agents.md, "The
// terminal-output extension"). terminal_output and terminal_output_delta
// both carry {terminal_id, data}.
const (
	MetaTerminalInfo        = "terminal_info"
	MetaTerminalOutput      = "terminal_output"
	MetaTerminalOutputDelta = "terminal_output_delta"
	MetaTerminalExit        = "terminal_exit"
)

// TermMeta is the terminal-output extension's part of an update's _meta.
type TermMeta struct {
	Info, Output, OutputDelta, Exit []byte // raw values, nil when absent
	Others                          int    // other _meta keys
}

// Any reports whether any of the extension's keys is present.
func (t TermMeta) Any() bool {
	return t.Info != nil || t.Output != nil || t.OutputDelta != nil || t.Exit != nil
}

// ParseTermMeta reads the extension's keys from a _meta object (validated
// JSON, or nil).
func ParseTermMeta(meta []byte) TermMeta {
	var t TermMeta
	if meta == nil {
		return t
	}
	rawjson.TrustedMembers(meta, func(key, val []byte) bool {
		switch {
		case rawjson.KeyIs(key, MetaTerminalInfo):
			t.Info = val
		case rawjson.KeyIs(key, MetaTerminalOutput):
			t.Output = val
		case rawjson.KeyIs(key, MetaTerminalOutputDelta):
			t.OutputDelta = val
		case rawjson.KeyIs(key, MetaTerminalExit):
			t.Exit = val
		default:
			t.Others++
		}
		return true
	})
	return t
}

// TerminalID is the terminal_id of an extension value (from a validated
// message), or "".
func TerminalID(val []byte) string {
	raw, ok := rawjson.TrustedGet(val, "terminal_id")
	if !ok {
		return ""
	}
	s, _ := rawjson.Unquote(raw)
	return s
}

// StripTermMeta deletes the extension's keys from the _meta of the object
// at base in msg, and _meta itself when nothing else is left in it.
func StripTermMeta(msg []byte, base []string, t TermMeta) ([]byte, error) {
	path := func(keys ...string) []string { return append(append([]string(nil), base...), keys...) }
	var err error
	for _, k := range []string{MetaTerminalInfo, MetaTerminalOutput, MetaTerminalOutputDelta, MetaTerminalExit} {
		if msg, _, err = rawjson.Delete(msg, path("_meta", k)...); err != nil {
			return nil, err
		}
	}
	if t.Others == 0 {
		msg, _, err = rawjson.Delete(msg, path("_meta")...)
	}
	return msg, err
}

// RawData is the output an update streams as the agent sent it: the JSON
// string bytes (escaped, without the quotes) of the data of
// terminal_output, then of terminal_output_delta, each nil when absent,
// null or not a string. It does not decode, and t must come from a
// validated message.
func RawData(t TermMeta) (output, delta []byte) {
	get := func(v []byte) []byte {
		if v == nil {
			return nil
		}
		raw, ok := rawjson.TrustedGet(v, "data")
		if !ok || len(raw) < 2 || raw[0] != '"' {
			return nil
		}
		return raw[1 : len(raw)-1]
	}
	return get(t.Output), get(t.OutputDelta)
}
