package view

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// ModelVersion changes when Data changes shape.
const ModelVersion = 1

// Data is everything the page shows. It is embedded in the page as JSON,
// and it is what the golden tests pin.
type Data struct {
	Version int `json:"version"`
	// Trace is the trace's file name ("-": stdin).
	Trace string `json:"trace"`
	// Flags are the filter flags the trace was replayed with, and Filters
	// the filters they enabled, in chain order, each named by the flag
	// that turned it on; both empty: no replay, after is before.
	Flags   []string `json:"flags"`
	Filters []string `json:"filters"`
	// Recorded says the trace was recorded with filters and not replayed:
	// after is what the recording proxy sent (the records' "out").
	Recorded bool `json:"recorded"`
	// Recording is how the proxy that recorded the connection was run,
	// when the trace says (its "connection" record).
	Recording *Recording `json:"recording,omitempty"`
	Duration  float64    `json:"duration"` // seconds, first record to last
	Session   Session    `json:"session"`
	// Directions are the messages and bytes of each direction, before and
	// after the filters, client->agent first.
	Directions []trace.DirectionReport `json:"directions"`
	Timeline   Timeline                `json:"timeline"`
	Calls      []Call                  `json:"calls"`
	// Conversation is what a person reads, in order, as the client saw it:
	// prompts, agent messages and thoughts, permission requests and their
	// answers, errors, turn ends.
	Conversation []Event `json:"conversation"`
	// Messages lists every message on both sides, or, for long traces,
	// the first and last MaxMessages/2 of each side.
	Messages        []Msg `json:"messages"`
	MessagesOmitted int   `json:"messagesOmitted"`
	// Connections, for a trace of several proxy runs (--record appends),
	// are each run's data; the fields above are then the whole trace's
	// totals, and its session, calls, conversation and messages are
	// empty.
	Connections []*Data `json:"connections,omitempty"`
	// Live, on a page that follows a session as it runs (acp-proxy
	// --serve, view --follow), says where it stands; absent on the page
	// of a finished trace.
	Live *LiveState `json:"live,omitempty"`
}

// LiveState is what a live page says of itself.
type LiveState struct {
	// Running: more may come. false: the session ended (the relay's
	// input closed on both sides) and this is the last data.
	Running bool `json:"running"`
	// Missed records, and their bytes, are lines the live view could not
	// keep up with and left out (the relay never waits for it); the
	// trace, with --record, has them all.
	Missed      int64 `json:"missed"`
	MissedBytes int64 `json:"missedBytes"`
	// Cut counts lines too long to filter, of which the live view kept
	// only the first bytes.
	Cut int64 `json:"cut"`
}

// Recording is how a connection's trace was made: the recording proxy's
// version, start, and command lines, its own and the agent's (Agent, as a
// shell reads it: the page shows it for an agent that never said its name).
type Recording struct {
	Proxy   string `json:"proxy"`
	Started string `json:"started"` // RFC 3339, UTC
	Agent   string `json:"agent"`
	Command string `json:"command"` // acp-proxy ARGS -- AGENT
	// Recorded says the proxy wrote a trace (--record): the live page of a session it only
	// serves (--serve) says how the proxy was run, not how a trace was recorded.
	Recorded bool `json:"recorded"`
}

// recording is what a "connection" record says, or nil.
func recording(conn []byte) *Recording {
	ci, ok := trace.ParseConnection(conn)
	if !ok {
		return nil
	}
	return &Recording{
		Proxy:    ci.Proxy,
		Started:  ci.Started.UTC().Format(time.RFC3339),
		Agent:    trace.ShellJoin(ci.Agent),
		Command:  trace.ShellJoin(append(append([]string{"acp-proxy"}, ci.Args...), append([]string{"--"}, ci.Agent...)...)),
		Recorded: slices.ContainsFunc(ci.Args, func(a string) bool { return a == "--record" || strings.HasPrefix(a, "--record=") }),
	}
}

// Count is a number of messages and their bytes on the wire ('\n'
// included), as replay --summary counts them.
type Count = acp.Count

// Session is what the two sides told each other in initialize and
// session/new.
type Session struct {
	ProtocolVersion json.RawMessage `json:"protocolVersion,omitempty"`
	Client          json.RawMessage `json:"clientInfo,omitempty"`
	Agent           json.RawMessage `json:"agentInfo,omitempty"`
	SessionIDs      []string        `json:"sessionIds"`
	Cwd             string          `json:"cwd,omitempty"`
	// ClientCapabilities are as the client sent them (before) and as the
	// agent received them (after); Injected lists what differs: what the
	// proxy added or changed on the client's behalf.
	ClientCapabilities Capabilities `json:"clientCapabilities"`
	// AgentCapabilities are as the agent sent them and as the client
	// received them.
	AgentCapabilities Capabilities `json:"agentCapabilities"`
	AuthMethods       []string     `json:"authMethods"`
}

// Capabilities is one side's capabilities object before and after the
// filters, and the leaves that differ.
type Capabilities struct {
	Before  json.RawMessage `json:"before,omitempty"`
	After   json.RawMessage `json:"after,omitempty"`
	Changed []CapChange     `json:"changed"`
}

// CapChange is one leaf of a capabilities object that the filters added,
// removed or changed, by its dotted path.
type CapChange struct {
	Path   string          `json:"path"`
	Before json.RawMessage `json:"before,omitempty"` // absent: added
	After  json.RawMessage `json:"after,omitempty"`  // absent: removed
}

// Timeline is the message traffic over time, in Bins equal bins of Width
// seconds, per direction (client->agent first) and side.
type Timeline struct {
	Width float64     `json:"width"`
	Dirs  []DirSeries `json:"dirs"`
}

// DirSeries is one direction's traffic per bin, before and after.
type DirSeries struct {
	Direction string `json:"direction"`
	Before    Series `json:"before"`
	After     Series `json:"after"`
}

// Series is messages and bytes per bin.
type Series struct {
	Messages []int64 `json:"messages"`
	Bytes    []int64 `json:"bytes"`
}

// Call is one tool call: its updates before and after the filters, the
// state each side would show at the end, and a sample of its raw messages.
type Call struct {
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Kind   string  `json:"kind"`
	Status string  `json:"status"`
	Start  float64 `json:"start"` // seconds: first update (after the filters, else before)
	End    float64 `json:"end"`   // last update
	Before Count   `json:"before"`
	After  Count   `json:"after"`
	// Final is the call as a client shows it once every update is
	// applied: "after" is what the client saw, "before" what it would
	// have seen without the filters (null when there are none).
	Final struct {
		Before *CallState `json:"before"`
		After  *CallState `json:"after"`
	} `json:"final"`
	// Raw are the first and last few updates of each side, with large
	// strings elided, for the before/after comparison (without filters:
	// "before" only).
	Raw struct {
		Before  []RawMsg `json:"before"`
		After   []RawMsg `json:"after"`
		Omitted [2]int64 `json:"omitted"` // updates not sampled, before and after
	} `json:"raw"`
}

// CallState is a tool call with all its updates applied, as ACP says a
// client applies them: each field replaces the last, terminal output
// appends.
type CallState struct {
	Title     string          `json:"title"`
	Kind      string          `json:"kind"`
	Status    string          `json:"status"`
	Content   []Content       `json:"content"`
	Locations []string        `json:"locations"`
	RawInput  *Text           `json:"rawInput,omitempty"`  // JSON, pretty-printed
	RawOutput *Text           `json:"rawOutput,omitempty"` // JSON, pretty-printed
	Terminals []Terminal      `json:"terminals"`
	Updates   int64           `json:"updates"`
	Meta      json.RawMessage `json:"-"`
}

// Content is one item of a tool call's content.
type Content struct {
	Type       string `json:"type"`              // content, diff, terminal, or what the agent sent
	Text       *Text  `json:"text,omitempty"`    // content: its text (or the block's JSON)
	Block      string `json:"block,omitempty"`   // content: the block's type
	Path       string `json:"path,omitempty"`    // diff
	OldText    *Text  `json:"oldText,omitempty"` // diff; nil: a new file
	NewText    *Text  `json:"newText,omitempty"` // diff
	TerminalID string `json:"terminalId,omitempty"`
}

// Terminal is the output the terminal-output extension streamed for one
// terminal of a call.
type Terminal struct {
	ID       string          `json:"id"`
	Output   Text            `json:"output"`
	ExitCode json.RawMessage `json:"exitCode,omitempty"`
	Signal   json.RawMessage `json:"signal,omitempty"`
	Exited   bool            `json:"exited"`
}

// Text is a piece of text, whole or elided: Text holds its first lines
// and Tail its last, OmittedLines lines (OmittedBytes bytes) between them
// are not shown.
type Text struct {
	Text         string `json:"text"`
	Tail         string `json:"tail,omitempty"`
	Bytes        int64  `json:"bytes"`
	Lines        int64  `json:"lines"`
	OmittedLines int64  `json:"omittedLines,omitempty"`
	OmittedBytes int64  `json:"omittedBytes,omitempty"`
}

// RawMsg is one message as it crossed, large strings elided.
type RawMsg struct {
	T float64 `json:"t"`
	// Src pairs a message with what the filters made of it: a received
	// message's number (from 0 over the trace's lines), and, on a
	// delivered one, the number of the received message it was made from;
	// Timer says a timer released it after that message.
	Src   int             `json:"q"`
	Timer bool            `json:"tm,omitempty"`
	Bytes int             `json:"bytes"`
	Msg   json.RawMessage `json:"msg,omitempty"`  // a JSON message, elided
	Line  *Text           `json:"line,omitempty"` // a line that is not JSON
}

// Event is one entry of the conversation.
type Event struct {
	T    float64 `json:"t"`
	Kind string  `json:"kind"` // prompt, agent, thought, user, permission, error, stop, plan, note (a filter's decision)
	Dir  string  `json:"dir"`
	Text *Text   `json:"text,omitempty"`
	// Call is the tool call a permission request is about.
	Call    string   `json:"call,omitempty"`
	Title   string   `json:"title,omitempty"`
	Options []string `json:"options,omitempty"` // permission: "name (kind)"
	Answer  string   `json:"answer,omitempty"`  // permission: the option chosen, or "cancelled"
	AnswerT float64  `json:"answerT,omitempty"`
}

// Msg is one message in the message list.
type Msg struct {
	Side  string  `json:"s"` // "b": received (before), "a": delivered (after)
	T     float64 `json:"t"`
	Dir   int     `json:"d"` // 0 client->agent, 1 agent->client
	Label string  `json:"m"` // method, "update kind", or "result of method"
	Bytes int     `json:"n"`
	Call  int     `json:"c"` // index into Calls, or -1
	Brief string  `json:"x,omitempty"`
	Src   int     `json:"q"`            // as RawMsg's
	Timer bool    `json:"tm,omitempty"` // as RawMsg's
}
