package acpclient

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Model is how a client renders a tool call's output, as
// docs/terminal-output.md describes the clients: what it shows of every
// call after a run of lines decides whether the proxy lost any of it.
type Model uint8

const (
	// PlainModel advertises neither extension key: an update's content
	// replaces the call's content, and it shows the text items. A terminal
	// item of the extension names no terminal it created: it shows nothing.
	PlainModel Model = iota
	// ZedModel advertises terminal_output: a terminal item also shows the
	// data every _meta.terminal_output appended to its terminal id, the way
	// Zed renders it. It does not read terminal_output_delta.
	ZedModel
	// DeltaModel advertises terminal_output_delta: that key appends, and a
	// terminal_output replaces what the terminal shows (claude-agent-acp's
	// reading of the two keys).
	DeltaModel
	// ContentOnlyModel advertises neither key, like PlainModel, but builds a
	// call's body from each update's own content alone: an update without
	// content shows none, where ACP says an absent field is unchanged. That
	// is how agent-shell (Emacs, acp.el 0.63.6) renders a call, so the
	// update that ends a call must carry the output it shows.
	ContentOnlyModel
)

// Models are the client models, each a way of reading the protocol a real
// client has.
var Models = []Model{PlainModel, ZedModel, DeltaModel, ContentOnlyModel}

func (m Model) String() string {
	return [...]string{"plain", "zed", "delta", "content-only"}[m]
}

// ModelFor is the model of a client that sent clientCapabilities caps.
func ModelFor(caps json.RawMessage) Model {
	var c struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(caps, &c)
	switch {
	case string(c.Meta["terminal_output_delta"]) == "true":
		return DeltaModel
	case string(c.Meta["terminal_output"]) == "true":
		return ZedModel
	}
	return PlainModel
}

// CallKey names a tool call: agents number calls per session, so the id
// alone may name calls of two sessions.
type CallKey struct{ Session, ID string }

// CallView is what a client shows of one tool call.
type CallView struct {
	Status  string        // the latest status
	content []ToolContent // the latest content
	// The agent's output as it reported it, for a client that could not
	// show it: the streamed data (its JSON string bytes, decoded once at
	// the end, as a surrogate pair split between chunks is meant), read as
	// docs/terminal-output.md says, and the latest rawOutput.
	streamed  []string
	deltas    bool
	rawOutput string
}

// View follows the tool calls a client of one model shows, line by line.
type View struct {
	Model     Model
	calls     map[CallKey]*CallView
	order     []CallKey
	terminals map[CallKey]string // (session, terminal id) → what the terminal shows
}

// NewView starts an empty view.
func NewView(m Model) *View {
	return &View{Model: m, calls: map[CallKey]*CallView{}, terminals: map[CallKey]string{}}
}

// ToolLine is the part of a session/update line that the client models
// read: the tool update's id, status, content, rawOutput and _meta.
type ToolLine struct {
	Method string `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
		Update    struct {
			SessionUpdate string                     `json:"sessionUpdate"`
			ToolCallID    string                     `json:"toolCallId"`
			Status        string                     `json:"status"`
			Content       json.RawMessage            `json:"content"`
			RawOutput     json.RawMessage            `json:"rawOutput"`
			Meta          map[string]json.RawMessage `json:"_meta"`
		} `json:"update"`
	} `json:"params"`
}

// termData is a terminal_output(_delta) value, its data kept as the JSON
// string it was sent as.
type termData struct {
	TerminalID string          `json:"terminal_id"`
	Data       json.RawMessage `json:"data"`
}

// Line takes one line the client received; a line that is not JSON is an
// error (a client could not read it).
func (v *View) Line(raw []byte) error {
	var l ToolLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("client cannot read %.200s: %w", raw, err)
	}
	u := l.Params.Update
	if l.Method != "session/update" || (u.SessionUpdate != "tool_call" && u.SessionUpdate != "tool_call_update") {
		return nil
	}
	k := CallKey{l.Params.SessionID, u.ToolCallID}
	c := v.calls[k]
	if c == nil {
		v.order = append(v.order, k)
	}
	if c == nil || u.SessionUpdate == "tool_call" {
		// A tool_call starts the call anew, even with an id seen before
		// (agents that number calls per turn reuse ids).
		c = &CallView{}
		v.calls[k] = c
	}
	if u.Status != "" {
		c.Status = u.Status
	}
	if u.Content != nil || v.Model == ContentOnlyModel {
		c.content = nil
	}
	if u.Content != nil {
		if err := json.Unmarshal(u.Content, &c.content); err != nil && string(u.Content) != "null" {
			return fmt.Errorf("content of %v: %w", k, err)
		}
	}
	if u.RawOutput != nil {
		c.rawOutput = RawOutputText(u.RawOutput)
	}
	return v.stream(l.Params.SessionID, c, u.Meta)
}

// stream applies the extension's data of one update: to the terminals the
// model renders, and to the agent's output.
func (v *View) stream(session string, c *CallView, meta map[string]json.RawMessage) error {
	if raw, ok := meta["terminal_info"]; ok {
		// terminal_info opens a new display terminal (Zed's emulator), even
		// for an id a terminal had before.
		var info termData
		if err := json.Unmarshal(raw, &info); err != nil {
			return fmt.Errorf("_meta.terminal_info: %w", err)
		}
		delete(v.terminals, CallKey{session, info.TerminalID})
	}
	var out, delta *termData
	for key, dst := range map[string]**termData{"terminal_output": &out, "terminal_output_delta": &delta} {
		if raw, ok := meta[key]; ok {
			*dst = &termData{}
			if err := json.Unmarshal(raw, *dst); err != nil {
				return fmt.Errorf("_meta.%s: %w", key, err)
			}
		}
	}
	if out != nil {
		if c.deltas {
			c.streamed = c.streamed[:0]
		}
		c.streamed = append(c.streamed, body(out.Data))
		switch v.Model {
		case ZedModel:
			v.terminals[CallKey{session, out.TerminalID}] += decode(out.Data)
		case DeltaModel:
			v.terminals[CallKey{session, out.TerminalID}] = decode(out.Data)
		}
	}
	if delta != nil {
		c.deltas = true
		c.streamed = append(c.streamed, body(delta.Data))
		if v.Model == DeltaModel {
			v.terminals[CallKey{session, delta.TerminalID}] += decode(delta.Data)
		}
	}
	return nil
}

// body is a JSON string's bytes without its quotes.
func body(q json.RawMessage) string {
	s := strings.TrimSpace(string(q))
	if len(s) >= 2 && s[0] == '"' {
		return s[1 : len(s)-1]
	}
	return ""
}

func decode(q json.RawMessage) string {
	var s string
	_ = json.Unmarshal(q, &s)
	return s
}

// Calls are the calls seen, in order of their first update.
func (v *View) Calls() []CallKey { return v.order }

// Call is what the client shows of call k, or nil.
func (v *View) Call(k CallKey) *CallView { return v.calls[k] }

// Shown is the text the client shows for call k: its text items, and the
// terminals the model renders, in the order of the content.
func (v *View) Shown(k CallKey) string { return v.render(k, func(s string) string { return s }) }

// render is what the client shows of call k, each text item through text.
func (v *View) render(k CallKey, text func(string) string) string {
	c := v.calls[k]
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, it := range c.content {
		switch {
		case it.Type == "content" && it.Content != nil && it.Content.Type == "text":
			b.WriteString(text(it.Content.Text))
		case it.Type == "terminal" && v.Model != PlainModel && v.Model != ContentOnlyModel:
			b.WriteString(v.terminals[CallKey{k.Session, it.TerminalID}])
		}
	}
	return b.String()
}

// AgentOutput is the output the agent reported for call k: what it
// streamed under the extension's keys, or its rawOutput when that holds
// more.
func (v *View) AgentOutput(k CallKey) string {
	c := v.calls[k]
	if c == nil {
		return ""
	}
	s := decode(json.RawMessage(`"` + strings.Join(c.streamed, "") + `"`))
	if len(c.rawOutput) > len(s) {
		return c.rawOutput
	}
	return s
}

// RawOutputText is the output in a rawOutput: claude's string, codex's
// aggregated_output, opencode's (and kilo's) metadata.output, qwen-code's
// output, cline's results (one {query, result} per command, joined), else
// stdout and stderr.
func RawOutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var results []struct {
		Query, Result *string
	}
	if json.Unmarshal(raw, &results) == nil {
		var b strings.Builder
		for _, r := range results {
			if r.Query == nil || r.Result == nil {
				return ""
			}
			b.WriteString(*r.Result)
		}
		return b.String()
	}
	var o struct {
		Stdout, Stderr   string
		AggregatedOutput *string `json:"aggregated_output"`
		Output           *string `json:"output"`
		Metadata         struct {
			Output *string `json:"output"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return ""
	}
	switch {
	case o.AggregatedOutput != nil:
		return *o.AggregatedOutput
	case o.Metadata.Output != nil:
		// opencode's own output beside it may be truncated.
		return *o.Metadata.Output
	case o.Output != nil:
		return *o.Output
	}
	return o.Stdout + o.Stderr
}

// Output is Shown with only the command's output: each text item without
// the markdown fence agents and the proxy put around output, and without
// the lines that are notes about the output rather than output (noteLine).
func (v *View) Output(k CallKey) string { return withoutNotes(v.render(k, Unfence)) }

// Unfence is the text inside a "```lang\n…\n```" fence, or s.
func Unfence(s string) string {
	if !strings.HasPrefix(s, "```") {
		return s
	}
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return s
	}
	inner := strings.TrimSuffix(s[nl+1:], "\n")
	if !strings.HasSuffix(inner, "```") {
		return s
	}
	inner = strings.TrimSuffix(inner, "```")
	return strings.TrimSuffix(inner, "\n")
}
