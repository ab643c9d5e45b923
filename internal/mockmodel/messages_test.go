package mockmodel_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
)

// messagesBody builds a Messages API request with the Bash tool or none.
func messagesBody(bash bool, stream bool, messages ...string) string {
	var tools []map[string]string
	if bash {
		tools = append(tools, map[string]string{"name": "Read"}, map[string]string{"name": "Bash"})
	}
	var msgs []json.RawMessage
	for _, m := range messages {
		msgs = append(msgs, json.RawMessage(m))
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "stream": stream, "tools": tools, "messages": msgs})
	return string(b)
}

const (
	prompt       = `{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"go"}]}`
	stringPrompt = `{"role":"user","content":"go"}`
	toolUse      = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}`
	toolResult   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"},{"type":"text","text":"<system-reminder>y</system-reminder>"}]}`
)

// messageStream is the event sequence of every streamed reply, tool use or text.
const messageStream = "message_start content_block_start content_block_delta content_block_stop message_delta message_stop"

func TestMessagesTurn(t *testing.T) {
	m := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{"echo hi"}})
	url := m.URL() + "/v1/messages?beta=true"

	events := post(t, url, messagesBody(true, true, prompt))
	got := types(events)
	require.Equal(t, messageStream, got, "events")
	block := field(events[1].Data, "content_block")
	b, _ := block.(map[string]any)
	if assert.Equal(t, "tool_use", b["type"], "content_block = %v, want tool_use Bash toolu_mock_1", block) {
		if assert.Equal(t, "Bash", b["name"], "content_block = %v, want tool_use Bash toolu_mock_1", block) {
			assert.Equal(t, "toolu_mock_1", b["id"], "content_block = %v, want tool_use Bash toolu_mock_1", block)
		}
	}
	var input struct{ Command, Description string }
	partial, _ := field(events[2].Data, "delta", "partial_json").(string)
	if assert.NoError(t, json.Unmarshal([]byte(partial), &input), "input_json_delta %q", partial) {
		assert.Equal(t, "echo hi", input.Command, "input_json_delta %q", partial)
		assert.NotEmpty(t, input.Description, "input_json_delta %q", partial)
	}
	assert.Equal(t, "tool_use", field(events[4].Data, "delta", "stop_reason"), "message_delta = %v, want stop_reason tool_use", events[4].Data)

	for _, body := range []string{
		messagesBody(true, true, prompt, toolUse, toolResult),
		messagesBody(true, true, stringPrompt, toolUse, toolResult),
	} {
		events = post(t, url, body)
		got := types(events)
		if assert.Equal(t, messageStream, got, "after the tool result: %v, want the text answer", events) {
			assert.Equal(t, mockmodel.DefaultAnswer, field(events[2].Data, "delta", "text"), "after the tool result: %v, want the text answer", events)
		}
		assert.Equal(t, "end_turn", field(events[4].Data, "delta", "stop_reason"), "message_delta = %v, want stop_reason end_turn", events[4].Data)
	}
	// Claude Code's prompt-suggestion fork offers the tools but is no turn.
	suggestion := `{"role":"user","content":[{"type":"text","text":"[SUGGESTION MODE] … Reply with ONLY the suggestion, no quotes or explanation."}]}`
	events = post(t, url, messagesBody(true, true, prompt, toolUse, toolResult, `{"role":"assistant","content":[{"type":"text","text":"done"}]}`, suggestion))
	assert.Equal(t, mockmodel.AuxText, field(events[2].Data, "delta", "text"), "prompt suggestion: %v, want the aux text", events)
	// A new prompt starts the script again.
	events = post(t, url, messagesBody(true, true, prompt, toolUse, toolResult, stringPrompt))
	assert.Equal(t, "tool_use", field(events[1].Data, "content_block", "type"), "second prompt: %v, want a tool use", events[1].Data)
	want := []string{"tool Bash", "answer", "answer", "aux", "tool Bash"}
	for i, r := range m.Requests() {
		assert.Equal(t, want[i], r.Reply, "request %d reply %q, want %q", i, r.Reply, want[i])
	}
}

func TestMessagesAuxiliaryRequests(t *testing.T) {
	m := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{"echo hi"}})

	resp, err := http.Head(m.URL() + "/")
	require.NoError(t, err, "HEAD /: %v", resp)
	require.Equal(t, http.StatusOK, resp.StatusCode, "HEAD /: %v %v", resp, err)
	resp.Body.Close()

	// A title request: no tools, not streamed.
	resp, err = http.Post(m.URL()+"/v1/messages?beta=true", "application/json", strings.NewReader(messagesBody(false, false, stringPrompt)))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var msg struct {
		Content []struct{ Type, Text string }
	}
	if assert.NoError(t, json.Unmarshal(b, &msg), "title reply %s", b) && assert.Len(t, msg.Content, 1, "title reply %s", b) {
		assert.Equal(t, mockmodel.AuxText, msg.Content[0].Text, "title reply")
	}

	// Streamed without tools: text too.
	events := post(t, m.URL()+"/v1/messages", messagesBody(false, true, prompt))
	assert.Equal(t, mockmodel.AuxText, field(events[2].Data, "delta", "text"), "streamed aux reply %v", events)

	got := m.Requests()
	if assert.Len(t, got, 3, "requests = %+v", got) {
		assert.Equal(t, "probe", got[0].Reply, "requests = %+v", got)
		assert.Equal(t, "aux", got[1].Reply, "requests = %+v", got)
		assert.Equal(t, "aux", got[2].Reply, "requests = %+v", got)
	}
}
