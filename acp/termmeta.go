package acp

import "github.com/acp-proxy/acp-proxy/internal/rawjson"

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

	// Read on the same walk: the terminal_id of each value (Info,
	// Output, OutputDelta, Exit), and the data of Output and OutputDelta
	// (see RawData).
	ids                   [4]string
	outputData, deltaData []byte
}

// Any reports whether any of the extension's keys is present.
func (t TermMeta) Any() bool {
	return t.Info != nil || t.Output != nil || t.OutputDelta != nil || t.Exit != nil
}

// ParseTermMeta reads the extension's keys from a _meta object (validated
// JSON, or nil).
func ParseTermMeta(meta []byte) TermMeta {
	t, _ := parseTermMeta(meta)
	return t
}

// parseTermMeta reads the extension's keys from the _meta object that
// starts meta, walking into their values so that a large data string is
// skipped once, and returns the index past the object (-1: not one).
func parseTermMeta(meta []byte) (TermMeta, int) {
	var t TermMeta
	if meta == nil {
		return t, -1
	}
	end := rawjson.TrustedWalk(meta, func(key []byte, vs int) (int, bool) {
		var n int
		switch {
		case rawjson.KeyIs(key, MetaTerminalInfo):
			n = 0
		case rawjson.KeyIs(key, MetaTerminalOutput):
			n = 1
		case rawjson.KeyIs(key, MetaTerminalOutputDelta):
			n = 2
		case rawjson.KeyIs(key, MetaTerminalExit):
			n = 3
		default:
			t.Others++
			return rawjson.TrustedSkip(meta, vs), true
		}
		var id, data []byte
		ve := rawjson.TrustedWalk(meta[vs:], func(k []byte, s int) (int, bool) {
			e := rawjson.TrustedSkip(meta[vs:], s)
			switch {
			case rawjson.KeyIs(k, "terminal_id"):
				id = meta[vs+s : vs+e]
			case rawjson.KeyIs(k, "data"):
				data = meta[vs+s : vs+e]
			}
			return e, true
		})
		if ve < 0 { // not an object
			ve = rawjson.TrustedSkip(meta, vs)
		} else {
			ve += vs
		}
		val := meta[vs:ve]
		if id != nil {
			t.ids[n], _ = rawjson.Unquote(id)
		}
		switch n {
		case 0:
			t.Info = val
		case 1:
			t.Output, t.outputData = val, stringBody(data)
		case 2:
			t.OutputDelta, t.deltaData = val, stringBody(data)
		case 3:
			t.Exit = val
		}
		return ve, true
	})
	return t, end
}

// stringBody is the bytes between the quotes of a raw JSON string, or nil
// when raw is not one.
func stringBody(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	return raw[1 : len(raw)-1]
}

// TerminalIDs are the terminal_id of Info, Output, OutputDelta and Exit,
// "" where absent or not a string.
func (t TermMeta) TerminalIDs() [4]string { return t.ids }

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
func RawData(t TermMeta) (output, delta []byte) { return t.outputData, t.deltaData }
