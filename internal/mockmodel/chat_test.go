package mockmodel_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
)

// chatBody builds a Chat Completions request; bash offers the bash tool.
func chatBody(bash, stream bool, messages ...string) string {
	var tools []any
	if bash {
		for _, name := range []string{"read", mockmodel.ChatShellTool} {
			tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": name}})
		}
	}
	var msgs []json.RawMessage
	for _, m := range messages {
		msgs = append(msgs, json.RawMessage(m))
	}
	b, _ := json.Marshal(map[string]any{"model": "mock-model", "stream": stream, "messages": msgs, "tools": tools})
	return string(b)
}

const (
	chatSystem   = `{"role":"system","content":"You are opencode"}`
	chatPrompt   = `{"role":"user","content":"go"}`
	chatCall     = `{"role":"assistant","content":"","tool_calls":[{"id":"call_mock_1","type":"function","function":{"name":"bash","arguments":"{}"}}]}`
	chatToolDone = `{"role":"tool","tool_call_id":"call_mock_1","content":"hi\n"}`
)

// chatChunk is the part of a chat.completion.chunk the tests read.
type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// postChat sends a streamed request and returns its chunks, checking the
// stream ends with [DONE].
func postChat(t *testing.T, url, body string) []chatChunk {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		require.FailNowf(t, "POST failed", "%s: %s %q: %s", url, resp.Status, resp.Header.Get("Content-Type"), b)
	}
	var chunks []chatChunk
	done := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		switch {
		case !ok || done:
			require.FailNowf(t, "unexpected SSE line", "%q", sc.Text())
		case data == "[DONE]":
			done = true
			continue
		}
		var c chatChunk
		require.NoError(t, json.Unmarshal([]byte(data), &c))
		chunks = append(chunks, c)
	}
	assert.True(t, done, "the stream does not end with [DONE]")
	return chunks
}

func finish(chunks []chatChunk) string {
	if f := chunks[len(chunks)-1].Choices[0].FinishReason; f != nil {
		return *f
	}
	return ""
}

func TestChatTurn(t *testing.T) {
	m := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{"echo hi"}})
	url := m.BaseURL() + "/chat/completions"

	chunks := postChat(t, url, chatBody(true, true, chatSystem, chatPrompt))
	var args strings.Builder
	var name, id string
	for _, c := range chunks {
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			name += tc.Function.Name
			id += tc.ID
			args.WriteString(tc.Function.Arguments)
		}
	}
	var in struct{ Command, Description string }
	assert.Equal(t, "bash", name, "tool name")
	assert.Equal(t, "call_mock_1", id, "tool call id")
	if assert.NoError(t, json.Unmarshal([]byte(args.String()), &in), "arguments %q", args.String()) {
		assert.Equal(t, "echo hi", in.Command, "arguments %q", args.String())
		assert.NotEmpty(t, in.Description, "arguments %q", args.String())
	}
	assert.Equal(t, "tool_calls", finish(chunks), "finish_reason")

	chunks = postChat(t, url, chatBody(true, true, chatSystem, chatPrompt, chatCall, chatToolDone))
	c := chunks[0].Choices[0].Delta.Content
	if assert.NotNil(t, c, "after the tool result: %+v, want the answer", chunks) {
		if assert.Equal(t, mockmodel.DefaultAnswer, *c, "after the tool result: %+v, want the answer", chunks) {
			assert.Equal(t, "stop", finish(chunks), "after the tool result: %+v, want the answer", chunks)
		}
	}
	// A new prompt starts the script again.
	chunks = postChat(t, url, chatBody(true, true, chatSystem, chatPrompt, chatCall, chatToolDone, `{"role":"assistant","content":"done"}`, chatPrompt))
	assert.Len(t, chunks[0].Choices[0].Delta.ToolCalls, 1, "second prompt: %+v, want a tool call", chunks[0])

	// The title request: no tools, streamed or not.
	chunks = postChat(t, url, chatBody(false, true, chatSystem, chatPrompt))
	if c := chunks[0].Choices[0].Delta.Content; assert.NotNil(t, c, "streamed title reply %+v", chunks) {
		assert.Equal(t, mockmodel.AuxText, *c, "streamed title reply")
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(chatBody(false, false, chatPrompt)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var full struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if assert.NoError(t, json.NewDecoder(resp.Body).Decode(&full), "title reply") {
		assert.Equal(t, mockmodel.AuxText, full.Choices[0].Message.Content, "title reply %+v", full)
	}
	want := []string{"tool bash", "answer", "tool bash", "aux", "aux"}
	for i, r := range m.Requests() {
		assert.Equal(t, want[i], r.Reply, "request %d reply %q, want %q", i, r.Reply, want[i])
	}
}

// A script's Calls follow its commands: the model calls the named tool with the arguments given.
func TestChatCallsAfterCommands(t *testing.T) {
	m := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{"echo hi"},
		Calls: []mockmodel.Call{{Tool: "edit", Args: map[string]any{"filePath": "a.txt", "oldString": "a", "newString": "b"}}}})
	url := m.BaseURL() + "/chat/completions"
	chunks := postChat(t, url, chatBody(true, true, chatSystem, chatPrompt, chatCall, chatToolDone))
	var args strings.Builder
	var name string
	for _, c := range chunks {
		for _, tc := range c.Choices[0].Delta.ToolCalls {
			name += tc.Function.Name
			args.WriteString(tc.Function.Arguments)
		}
	}
	if assert.Equal(t, "edit", name, "second step: %s %s, want the edit call", name, args.String()) {
		assert.Equal(t, `{"filePath":"a.txt","newString":"b","oldString":"a"}`, args.String(), "second step: %s %s, want the edit call", name, args.String())
	}
	chunks = postChat(t, url, chatBody(true, true, chatSystem, chatPrompt, chatCall, chatToolDone, chatCall, chatToolDone))
	assert.Equal(t, "stop", finish(chunks), "after both: finish")
}

// TestChatCallsTheShellToolOffered: a request that offers another agent's
// shell tool, and no bash, gets the command as a call of that tool, with its
// arguments: qwen-code's run_shell_command, cline's run_commands (the
// command alone in its list, no workdir), grok-build's run_terminal_command.
func TestChatCallsTheShellToolOffered(t *testing.T) {
	for _, tc := range []struct {
		tool     string
		others   []string // the other tools offered
		workdirs []string // the script's
		want     string   // the arguments
	}{
		{mockmodel.GeminiShellTool, []string{"read_file", "write_file"}, nil, `{"command":"echo hi","description":"Run the mock model's command"}`},
		{mockmodel.ClineShellTool, []string{"read_files", "apply_patch"}, []string{"/w"}, `{"commands":["echo hi"]}`},
		{mockmodel.GrokShellTool, []string{"read_file", "write"}, nil, `{"command":"echo hi","description":"Run the mock model's command"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			m := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{"echo hi"}, Workdirs: tc.workdirs})
			var tools []any
			for _, name := range []string{tc.others[0], tc.tool, tc.others[1]} {
				tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": name}})
			}
			body, err := json.Marshal(map[string]any{"model": "mock-model", "stream": true, "tools": tools,
				"messages": []json.RawMessage{json.RawMessage(chatSystem), json.RawMessage(chatPrompt)}})
			require.NoError(t, err)
			chunks := postChat(t, m.BaseURL()+"/chat/completions", string(body))
			var name, args string
			for _, c := range chunks {
				for _, call := range c.Choices[0].Delta.ToolCalls {
					name += call.Function.Name
					args += call.Function.Arguments
				}
			}
			assert.Equal(t, tc.tool, name, "tool name")
			assert.JSONEq(t, tc.want, args, "arguments")
			if reqs := m.Requests(); assert.Len(t, reqs, 1, "requests") {
				assert.Equal(t, "tool "+tc.tool, reqs[0].Reply, "reply")
			}
		})
	}
}
