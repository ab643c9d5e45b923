package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// Responses is a mock OpenAI Responses API (`POST /v1/responses`, streamed)
// for codex-acp. Point codex's model provider base_url at BaseURL().
type Responses struct {
	server
}

// NewResponses starts a Responses server on 127.0.0.1 that follows script;
// it is closed when the test ends.
func NewResponses(t testing.TB, script Script) *Responses {
	return newMock[Responses](t, "Responses", script)
}

// BaseURL is the provider base URL codex appends "/responses" to.
func (m *Responses) BaseURL() string { return m.srv.URL + "/v1" }

// responsesRequest is the part of a Responses API request the mock reads.
type responsesRequest struct {
	Stream bool              `json:"stream"`
	Input  []json.RawMessage `json:"input"`
	Tools  []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// inputItem is the part of an input item the mock reads.
type inputItem struct {
	Type   string          `json:"type"`
	Role   string          `json:"role"`
	Name   string          `json:"name"`   // function_call
	Output json.RawMessage `json:"output"` // function_call_output: a string, or content items
}

// PollTool is codex's tool for a command still running after
// exec_command's yield time: the model passes the process's session id,
// and gets what it printed since, and whether it exited.
const PollTool = "write_stdin"

// runningSession matches what codex tells the model of a command that
// outlived its yield time: the process's session id to poll.
var runningSession = regexp.MustCompile(`Process running with session ID (\d+)`)

func (m *Responses) serve(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	i, ok := m.readTurn(w, r, "/v1/responses", &req)
	if !ok {
		return
	}
	if !req.Stream {
		m.logf("request without stream:true; streaming anyway")
	}
	done, running, err := toolOutputsThisTurn(req.Input)
	if err != nil {
		m.logf("%v", err)
	}
	tool := shellTool(req)
	if running != "" && offers(req, PollTool) {
		m.rec.setReply(i, "poll "+running)
		m.writeCall(w, PollTool, pollArguments(running))
		return
	}
	if done < len(m.script.Commands) && tool != "" {
		m.rec.setReply(i, "tool "+tool)
		m.writeToolCall(w, tool, m.script.Commands[done])
		return
	}
	reply := "answer"
	if tool == "" {
		reply = "aux"
		m.logf("request offers no shell tool; answering with text")
	}
	if m.answering(r, i, reply, done, DefaultCodexAnswerDelay) {
		m.writeAnswer(w, m.script.answer())
	}
}

// toolOutputsThisTurn counts the command calls after the last user message,
// that is, how many of the script's commands already ran in this prompt
// turn (polls of a running one do not count), and returns the session id
// of the process the last output says still runs ("" when none does).
func toolOutputsThisTurn(input []json.RawMessage) (n int, running string, err error) {
	polls := 0
	for _, raw := range input {
		var it inputItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return n - polls, "", fmt.Errorf("decode input item: %w", err)
		}
		switch {
		case it.Type == "message" && it.Role == "user":
			n, polls, running = 0, 0, ""
		case it.Type == "function_call" && it.Name == PollTool:
			polls++
		case it.Type == "function_call_output":
			n++
			running = ""
			if m := runningSession.FindSubmatch(it.Output); m != nil {
				running = string(m[1])
			}
		}
	}
	return n - polls, running, nil
}

// offers reports whether the request offers the model the tool name.
func offers(req responsesRequest, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// pollArguments polls the running process session: no input, and a wait
// for output as long as codex allows.
func pollArguments(session string) string {
	id, _ := strconv.Atoi(session)
	b, _ := json.Marshal(map[string]any{"session_id": id, "chars": "", "yield_time_ms": 5000})
	return string(b)
}

// shellTool picks the tool codex offers for shell commands (docs/agents.md,
// "The model's shell tools"):
// unified exec's exec_command, else shell_command (0.16 without unified
// exec), else shell (0.13 without unified exec). Empty: none offered.
func shellTool(req responsesRequest) string {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	for _, name := range []string{"exec_command", "shell_command", "shell"} {
		if offered[name] {
			return name
		}
	}
	return ""
}

// EscalationJustification is why the model says an escalated command must
// leave the sandbox ([Script.Escalate]); the agent shows it to the user.
const EscalationJustification = "The mock model's command needs to run outside the sandbox"

// shellArguments is the JSON arguments string of a call to tool.
func shellArguments(tool, script string, escalate bool, yield time.Duration) (string, error) {
	var args any
	switch tool {
	case "exec_command":
		exec := map[string]any{"cmd": script}
		if yield > 0 {
			exec["yield_time_ms"] = yield.Milliseconds()
		}
		if escalate {
			exec["sandbox_permissions"] = "require_escalated"
			exec["justification"] = EscalationJustification
		}
		args = exec
	case "shell_command":
		args = map[string]any{"command": script}
	case "shell":
		args = map[string]any{"command": []string{"bash", "-lc", script}}
	default:
		return "", fmt.Errorf("no arguments for tool %q", tool)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("marshal %s arguments: %w", tool, err)
	}
	return string(b), nil
}

func (m *Responses) writeToolCall(w http.ResponseWriter, tool, script string) {
	args, err := shellArguments(tool, script, m.script.Escalate, m.script.ExecYield)
	if err != nil {
		m.logf("%v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	m.writeCall(w, tool, args)
}

// writeCall streams one function call of tool with the JSON arguments args.
func (m *Responses) writeCall(w http.ResponseWriter, tool, args string) {
	n := m.calls.Add(1)
	callID := fmt.Sprintf("call_mock_%d", n)
	item := func(arguments, status string) map[string]any {
		return map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n), "call_id": callID,
			"name": tool, "arguments": arguments, "status": status,
		}
	}
	respID := m.nextResponseID()
	sse := newSSEWriter(w)
	sse.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item("", "in_progress")})
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item(args, "completed")})
	sse.event("response.completed", completed(respID))
	if sse.err != nil {
		m.logf("tool call %s: %v", callID, sse.err)
	}
}

func (m *Responses) writeAnswer(w http.ResponseWriter, text string) {
	respID := m.nextResponseID()
	msgID := respID + "_msg"
	message := func(content []any, status string) map[string]any {
		return map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": status, "content": content}
	}
	part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	sse := newSSEWriter(w)
	sse.event("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	sse.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": message([]any{}, "in_progress")})
	sse.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": msgID, "output_index": 0, "content_index": 0, "delta": text})
	sse.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": message([]any{part}, "completed")})
	sse.event("response.completed", completed(respID))
	if sse.err != nil {
		m.logf("answer: %v", sse.err)
	}
}

func (m *Responses) nextResponseID() string {
	return fmt.Sprintf("resp_mock_%d", m.replies.Add(1))
}

// completed is the response.completed event; codex requires usage.
func completed(respID string) map[string]any {
	return map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID,
		"usage": map[string]any{
			"input_tokens": 10, "input_tokens_details": nil,
			"output_tokens": 5, "output_tokens_details": nil,
			"total_tokens": 15,
		},
	}}
}
