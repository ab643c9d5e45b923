package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// ChatShellTool is the shell tool of opencode and kilo.
const ChatShellTool = "bash"

// ClineShellTool is cline's shell tool. It takes a list of commands,
// {"commands": [...]}, which Chat fills with the script's one command.
const ClineShellTool = "run_commands"

// GrokShellTool is grok-build's shell tool. It takes the command and a
// description, as Claude Code's Bash does.
const GrokShellTool = "run_terminal_command"

// chatShellTools are the shell tools Chat calls, whichever a request
// offers first: opencode's and kilo's bash, qwen-code's
// run_shell_command (it kept gemini-cli's tool names), cline's
// run_commands, or grok-build's run_terminal_command.
var chatShellTools = []string{ChatShellTool, GeminiShellTool, ClineShellTool, GrokShellTool}

// Chat is a mock OpenAI Chat Completions API (`POST /v1/chat/completions`)
// for agents that use an OpenAI-compatible provider, such as opencode.
// Point the provider's baseURL at BaseURL().
//
// Requests that offer a shell tool (bash, run_shell_command, run_commands or
// run_terminal_command) follow the script; any other one (the
// session title, summaries) gets a short text reply. Replies are streamed
// when the request asks for it.
type Chat struct {
	server
}

// NewChat starts a Chat server on 127.0.0.1 that follows script; it is
// closed when the test ends.
func NewChat(t testing.TB, script Script) *Chat { return newMock[Chat](t, "Chat", script) }

// BaseURL is the provider base URL the client appends "/chat/completions" to.
func (m *Chat) BaseURL() string { return m.srv.URL + "/v1" }

// chatRequest is the part of a Chat Completions request the mock reads.
type chatRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role string `json:"role"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (m *Chat) serve(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	i, ok := m.readTurn(w, r, "/v1/chat/completions", &req)
	if !ok {
		return
	}
	shellTool := req.shellTool()
	if shellTool == "" {
		m.rec.setReply(i, "aux")
		m.writeText(w, req.Stream, AuxText)
		return
	}
	done := req.toolResultsThisTurn()
	if done < m.script.steps() {
		if !req.Stream {
			m.logf("tool turn without stream:true; streaming anyway")
		}
		c := m.script.stepCall(done, shellTool)
		if workdir := m.script.workdir(done); workdir != "" {
			c.Args["workdir"] = workdir
		}
		if c.Tool == ClineShellTool {
			c.Args = map[string]any{"commands": []any{c.Args["command"]}}
		}
		m.rec.setReply(i, "tool "+c.Tool)
		m.writeToolCall(w, c.Tool, c.Args)
		return
	}
	if m.answering(r, i, "answer", done, 0) {
		m.writeText(w, req.Stream, m.script.answer())
	}
}

// shellTool is the first of chatShellTools the request offers, or "".
func (req chatRequest) shellTool() string {
	for _, name := range chatShellTools {
		if req.offers(name) {
			return name
		}
	}
	return ""
}

func (req chatRequest) offers(name string) bool {
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// toolResultsThisTurn counts the tool messages after the last user message,
// that is, how many of the script's commands already ran in this turn.
func (req chatRequest) toolResultsThisTurn() int {
	n := 0
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			n = 0
		case "tool":
			n++
		}
	}
	return n
}

// chunk is one chat.completion.chunk with one choice.
func (m *Chat) chunk(id string, delta map[string]any, finish any) map[string]any {
	return map[string]any{
		"id": id, "object": "chat.completion.chunk", "created": 1, "model": "mock-model",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	}
}

func (m *Chat) nextID() string { return fmt.Sprintf("chatcmpl-mock-%d", m.replies.Add(1)) }

var chatUsage = map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

func (m *Chat) writeToolCall(w http.ResponseWriter, tool string, input map[string]any) {
	args, err := json.Marshal(input)
	if err != nil {
		m.logf("marshal %s arguments: %v", tool, err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	id := m.nextID()
	callID := fmt.Sprintf("call_mock_%d", m.calls.Add(1))
	sse := newSSEWriter(w)
	sse.event("", m.chunk(id, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"index": 0, "id": callID, "type": "function",
		"function": map[string]any{"name": tool, "arguments": ""},
	}}}, nil))
	sse.event("", m.chunk(id, map[string]any{"tool_calls": []any{map[string]any{
		"index": 0, "function": map[string]any{"arguments": string(args)},
	}}}, nil))
	end := m.chunk(id, map[string]any{}, "tool_calls")
	end["usage"] = chatUsage
	sse.event("", end)
	sse.frame("", []byte("[DONE]"))
	if sse.err != nil {
		m.logf("tool call %s: %v", callID, sse.err)
	}
}

func (m *Chat) writeText(w http.ResponseWriter, stream bool, text string) {
	id := m.nextID()
	if !stream {
		writeJSON(w, map[string]any{
			"id": id, "object": "chat.completion", "created": 1, "model": "mock-model",
			"choices": []any{map[string]any{
				"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop",
			}},
			"usage": chatUsage,
		})
		return
	}
	sse := newSSEWriter(w)
	sse.event("", m.chunk(id, map[string]any{"role": "assistant", "content": text}, nil))
	end := m.chunk(id, map[string]any{}, "stop")
	end["usage"] = chatUsage
	sse.event("", end)
	sse.frame("", []byte("[DONE]"))
	if sse.err != nil {
		m.logf("text reply: %v", sse.err)
	}
}
