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
	// Output, OutputDelta, Exit), the data of Output and OutputDelta, as
	// JSON strings with their quotes (see RawData), and Exit's exit_code
	// and signal.
	ids                   [4]string
	outputData, deltaData []byte
	exitCode, signal      []byte
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
		n := termKey(key)
		if n < 0 {
			t.Others++
			return rawjson.TrustedSkip(meta, vs), true
		}
		tv := readTermValue(meta, vs)
		val := meta[vs:tv.end]
		if tv.id != nil {
			t.ids[n], _ = rawjson.Unquote(tv.id) // "" when not a string
		}
		switch n {
		case 0:
			t.Info = val
		case 1:
			t.Output, t.outputData = val, quoted(tv.data)
		case 2:
			t.OutputDelta, t.deltaData = val, quoted(tv.data)
		case 3:
			t.Exit, t.exitCode, t.signal = val, tv.exitCode, tv.signal
		}
		return tv.end, true
	})
	return t, end
}

// termKey is the index of an extension key (Info, Output, OutputDelta,
// Exit), or -1.
func termKey(key []byte) int {
	for n, k := range [...]string{MetaTerminalInfo, MetaTerminalOutput, MetaTerminalOutputDelta, MetaTerminalExit} {
		if rawjson.KeyIs(key, k) {
			return n
		}
	}
	return -1
}

// termValue is what an extension value holds, as spans of the _meta, and
// the index past it.
type termValue struct {
	id, data, exitCode, signal []byte
	end                        int
}

// readTermValue reads the extension value at vs of meta.
func readTermValue(meta []byte, vs int) termValue {
	var tv termValue
	v := meta[vs:]
	end := rawjson.TrustedWalk(v, func(k []byte, s int) (int, bool) {
		e := rawjson.TrustedSkip(v, s)
		switch {
		case rawjson.KeyIs(k, "terminal_id"):
			tv.id = v[s:e]
		case rawjson.KeyIs(k, "data"):
			tv.data = v[s:e]
		case rawjson.KeyIs(k, "exit_code"):
			tv.exitCode = v[s:e]
		case rawjson.KeyIs(k, "signal"):
			tv.signal = v[s:e]
		}
		return e, true
	})
	if end < 0 { // not an object
		tv.end = rawjson.TrustedSkip(meta, vs)
	} else {
		tv.end = vs + end
	}
	return tv
}

// quoted is raw when it is a JSON string (with its quotes), else nil.
func quoted(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	return raw
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
func RawData(t TermMeta) (output, delta []byte) {
	return unquoted(t.outputData), unquoted(t.deltaData)
}

// unquoted is the bytes between the quotes of a JSON string, or nil.
func unquoted(s []byte) []byte {
	if s == nil {
		return nil
	}
	return s[1 : len(s)-1]
}

// Data is the output an update streams, decoded: RawData unescaped, ""
// where RawData is nil (or its escapes are not valid).
func Data(t TermMeta) (output, delta string) {
	output, _ = rawjson.Unquote(t.outputData)
	delta, _ = rawjson.Unquote(t.deltaData)
	return output, delta
}

// ExitStatus is the raw exit_code and signal of terminal_exit, each nil
// when absent.
func (t TermMeta) ExitStatus() (code, signal []byte) { return t.exitCode, t.signal }
