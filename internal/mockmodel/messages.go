package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Messages is a mock Anthropic Messages API for claude-agent-acp. Point
// ANTHROPIC_BASE_URL at URL().
//
// The CLI probes `HEAD /` and then streams `POST /v1/messages?beta=true`.
// Requests that offer the Bash tool are the agent's turns and follow the
// script; any other message request (titles, quota checks) gets a short
// text reply.
type Messages struct {
	server
}

// NewMessages starts a Messages server on 127.0.0.1 that follows script;
// it is closed when the test ends.
func NewMessages(t testing.TB, script Script) *Messages {
	return newMock[Messages](t, "Messages", script)
}

// URL is the base URL, for ANTHROPIC_BASE_URL.
func (m *Messages) URL() string { return m.srv.URL }

// messagesRequest is the part of a Messages API request the mock reads.
type messagesRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or an array of blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (m *Messages) serve(w http.ResponseWriter, r *http.Request) {
	i, body, ok := m.accept(w, r)
	if !ok {
		return
	}
	switch {
	case r.Method == http.MethodHead || (r.Method == http.MethodGet && r.URL.Path == "/"):
		m.rec.setReply(i, "probe")
		w.WriteHeader(http.StatusOK)
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		m.rec.setReply(i, "aux")
		writeJSON(w, map[string]any{"input_tokens": 10})
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		m.unexpected(w, r, i, body)
		return
	}
	var req messagesRequest
	if m.decode(w, i, body, &req) {
		m.turn(w, r, i, req)
	}
}

// turn answers a messages request.
func (m *Messages) turn(w http.ResponseWriter, r *http.Request, i int, req messagesRequest) {
	if !offersTool(req, "Bash") || isPromptSuggestion(req) {
		m.rec.setReply(i, "aux")
		m.writeText(w, r, req.Stream, AuxText)
		return
	}
	done, prompt, err := toolResultsThisTurn(req)
	if err != nil {
		m.logf("%v", err)
	}
	if commands := m.script.commandsFor(prompt); done < len(commands) {
		m.rec.setReply(i, "tool Bash")
		if !req.Stream {
			m.logf("tool turn without stream:true; streaming anyway")
		}
		m.writeToolUse(w, commands[done])
		return
	}
	if m.answering(r, i, "answer", done, 0) {
		m.writeText(w, r, req.Stream, m.script.answer())
	}
}

// promptSuggestionMarker ends the prompt of the Claude Code CLI's
// prompt-suggestion request (claude-agent-acp 0.10x turns suggestions on):
// after a turn, the CLI forks the conversation with this prompt to guess
// the user's next message. The fork keeps the tools, but denies any use
// of them, so it is not a turn of the script.
const promptSuggestionMarker = "Reply with ONLY the suggestion"

func isPromptSuggestion(req messagesRequest) bool {
	if len(req.Messages) == 0 {
		return false
	}
	last := req.Messages[len(req.Messages)-1]
	return last.Role == "user" && strings.Contains(string(last.Content), promptSuggestionMarker)
}

func offersTool(req messagesRequest, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// toolResultsThisTurn counts the tool_result blocks after the last user
// message that is a prompt (has content but no tool_result), that is, how
// many of the script's commands already ran in this prompt turn, and returns
// that prompt's content.
func toolResultsThisTurn(req messagesRequest) (n int, prompt []byte, err error) {
	for _, msg := range req.Messages {
		if msg.Role != "user" {
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if len(msg.Content) > 0 && msg.Content[0] == '"' {
			n, prompt = 0, msg.Content // a plain string is a prompt
			continue
		}
		if err := json.Unmarshal(msg.Content, &blocks); err != nil {
			return n, prompt, fmt.Errorf("decode message content: %w", err)
		}
		results := 0
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results++
			}
		}
		if results == 0 {
			n, prompt = 0, msg.Content
		}
		n += results
	}
	return n, prompt, nil
}

func (m *Messages) nextMessageID() string {
	return fmt.Sprintf("msg_mock_%d", m.replies.Add(1))
}

func messageStart(id string) map[string]any {
	return map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "mock-model",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}}
}

func messageEnd(sse *sseWriter, stopReason string) {
	sse.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5},
	})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

func (m *Messages) writeToolUse(w http.ResponseWriter, script string) {
	input, err := json.Marshal(commandInput(script))
	if err != nil {
		m.logf("marshal Bash input: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	id := fmt.Sprintf("toolu_mock_%d", m.calls.Add(1))
	sse := newSSEWriter(w)
	sse.event("message_start", messageStart(m.nextMessageID()))
	sse.event("content_block_start", map[string]any{
		"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}},
	})
	sse.event("content_block_delta", map[string]any{
		"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)},
	})
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	messageEnd(sse, "tool_use")
	if sse.err != nil {
		m.logf("tool use %s: %v", id, sse.err)
	}
}

func (m *Messages) writeText(w http.ResponseWriter, r *http.Request, stream bool, text string) {
	id := m.nextMessageID()
	if !stream {
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": "mock-model",
			"content":     []any{map[string]any{"type": "text", "text": text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
		})
		return
	}
	sse := newSSEWriter(w)
	sse.event("message_start", messageStart(id))
	sse.event("content_block_start", map[string]any{
		"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""},
	})
	sse.event("content_block_delta", map[string]any{
		"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "text_delta", "text": text},
	})
	sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	messageEnd(sse, "end_turn")
	if sse.err != nil {
		m.logf("text reply to %s: %v", strings.TrimSpace(r.URL.String()), sse.err)
	}
}

// writeJSON answers with v. An encoding error can only be a write error
// (v is the mock's own map), which means the agent went away: nothing to do.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
