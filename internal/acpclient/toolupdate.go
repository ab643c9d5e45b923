package acpclient

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ToolUpdate is a decoded tool_call or tool_call_update. Absent and null
// fields are both nil here; use the raw update to tell them apart.
type ToolUpdate struct {
	SessionUpdate string                     `json:"sessionUpdate"`
	ToolCallID    string                     `json:"toolCallId"`
	Title         *string                    `json:"title"`
	Kind          string                     `json:"kind"`
	Status        string                     `json:"status"`
	Content       []ToolContent              `json:"content"`
	RawInput      json.RawMessage            `json:"rawInput"`
	RawOutput     json.RawMessage            `json:"rawOutput"`
	Meta          map[string]json.RawMessage `json:"_meta"`

	HasContent bool `json:"-"` // the update carries a "content" key
}

// ToolContent is one item of a tool call's content.
type ToolContent struct {
	Type       string `json:"type"` // content, diff, terminal
	TerminalID string `json:"terminalId"`
	Content    *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// TerminalMeta is the value of the terminal-output extension keys
// (docs/agents.md, "The terminal-output extension"): terminal_info,
// terminal_output(_delta), terminal_exit.
type TerminalMeta struct {
	TerminalID string `json:"terminal_id"`
	CWD        string `json:"cwd"`
	Data       string `json:"data"`
	ExitCode   *int   `json:"exit_code"`
}

// DecodeToolUpdate decodes one params.update object.
func DecodeToolUpdate(raw json.RawMessage) (ToolUpdate, error) {
	var u ToolUpdate
	if err := json.Unmarshal(raw, &u); err != nil {
		return u, fmt.Errorf("decode tool update: %w", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return u, fmt.Errorf("decode tool update keys: %w", err)
	}
	_, u.HasContent = keys["content"]
	return u, nil
}

// Decoded decodes every retained update of the call.
func (tc ToolCall) Decoded() ([]ToolUpdate, error) {
	out := make([]ToolUpdate, 0, len(tc.Updates))
	for i, raw := range tc.Updates {
		u, err := DecodeToolUpdate(raw)
		if err != nil {
			return nil, fmt.Errorf("tool call %s update %d: %w", tc.ID, i, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// Terminal returns the _meta value at key (terminal_info, terminal_output,
// terminal_output_delta, terminal_exit) and whether it is present.
func (u ToolUpdate) Terminal(key string) (TerminalMeta, bool) {
	raw, ok := u.Meta[key]
	if !ok {
		return TerminalMeta{}, false
	}
	var m TerminalMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return TerminalMeta{}, false
	}
	return m, true
}

// Text concatenates the text of the update's content items.
func (u ToolUpdate) Text() string {
	var b strings.Builder
	for _, c := range u.Content {
		if c.Type == "content" && c.Content != nil {
			b.WriteString(c.Content.Text)
		}
	}
	return b.String()
}

// TerminalData concatenates the appended output of the call's updates, under
// terminal_output or terminal_output_delta.
func TerminalData(updates []ToolUpdate) string {
	var b strings.Builder
	for _, u := range updates {
		for _, key := range []string{"terminal_output", "terminal_output_delta"} {
			if m, ok := u.Terminal(key); ok {
				b.WriteString(m.Data)
			}
		}
	}
	return b.String()
}
