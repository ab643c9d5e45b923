package output

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// DefaultMaxCallOutputBytes is how much of one tool call's output the
// proxy holds in memory at most (--max-output-bytes), wherever it holds
// it: the output kept per call to translate it for a client without the
// extension or to complete it from rawOutput when the call ends
// (TerminalOutput.MaxBytes), and a saved output file read to be shown in
// full in place of its preview (PersistedOutput.MaxBytes). A command that
// never stops printing, or a huge saved file, so cannot grow the proxy
// without bound.
const DefaultMaxCallOutputBytes = 8 << 20

// turnEnded reports the session whose prompt turn m (agent→client) ends,
// as the connection's tracker tells (capabilities.Negotiated.TurnEnded). A
// line that mentions neither a stopReason nor an error, or starts as a
// notification, is not a prompt's response, and is passed over unparsed.
func turnEnded(m *filters.Message) (string, bool) {
	if acp.BeginsWithMethod(m.Raw) || !mentions(m.Raw, quotedStopReason) && !mentions(m.Raw, quotedError) {
		return "", false
	}
	return m.Caps.TurnEnded(&m.Message)
}

// clientMode is what the client advertised about the extension.
type clientMode uint8

const (
	clientUnknown    clientMode = iota // no initialize seen: leave everything alone
	clientTranslated                   // no terminal_output: the proxy translates
	clientSpeaks                       // renders terminal_output(_delta) itself
)

// clientView is what an output filter remembers of the client, read once
// initialize has been seen.
type clientView struct {
	mode clientMode
	// delta: the client advertised terminal_output_delta, so it appends
	// terminal_output_delta chunks, and takes a terminal_output as a
	// replacement of the terminal's output (claude-agent-acp's reading of
	// the two keys).
	delta bool
	// key is the _meta key the client appends streamed output from:
	// terminal_output_delta when it advertised that, else terminal_output.
	key string
}

func (v *clientView) load(m *filters.Message) clientMode {
	if v.mode != clientUnknown || m.Caps == nil {
		return v.mode
	}
	c, ok := m.Caps.Client()
	if !ok {
		return clientUnknown
	}
	switch {
	case c.TerminalOutputDelta:
		v.mode, v.key, v.delta = clientSpeaks, acp.MetaTerminalOutputDelta, true
	case c.TerminalOutput:
		v.mode, v.key = clientSpeaks, acp.MetaTerminalOutput
	default:
		v.mode = clientTranslated
	}
	return v.mode
}

// Strings whose absence from a line tells a filter, without parsing it,
// that the line is not its business: every message an output filter acts
// on contains one of them, as agents write JSON keys and values without
// escaping plain ASCII (a line that spelled them with \u escapes would be
// passed on unchanged).
var (
	quotedTerminal      = []byte(`"terminal`)    // terminal items and _meta keys
	quotedExecute       = []byte(`"execute"`)    // the kind of a call deltas keeps
	quotedCommand       = []byte(`"command"`)    // the rawInput key of a listing's or search's command (isCommand)
	quotedToolCallStart = []byte(`"tool_call"`)  // a tool_call's sessionUpdate (and not a tool_call_update's)
	quotedStopReason    = []byte(`"stopReason"`) // a session/prompt result
	quotedError         = []byte(`"error"`)      // an error response
)

func mentions(raw, s []byte) bool { return rawjson.Contains(raw, s) }
