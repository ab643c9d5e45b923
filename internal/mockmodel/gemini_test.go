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

// geminiBody builds a generateContent request; shell offers run_shell_command.
func geminiBody(shell bool, contents ...string) string {
	var tools []any
	if shell {
		tools = []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "read_file"}, map[string]any{"name": mockmodel.GeminiShellTool},
		}}}
	}
	var cs []json.RawMessage
	for _, c := range contents {
		cs = append(cs, json.RawMessage(c))
	}
	b, _ := json.Marshal(map[string]any{"contents": cs, "tools": tools})
	return string(b)
}

const (
	geminiContext  = `{"role":"user","parts":[{"text":"<session_context>…</session_context>"}]}`
	geminiPrompt   = `{"role":"user","parts":[{"text":"go"}]}`
	geminiCall     = `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"echo hi"}}}]}`
	geminiResponse = `{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"hi"}}}]}`
)

// geminiReply is the one part of a reply's first candidate.
type geminiReply struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string            `json:"name"`
					Args map[string]string `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
}

// postGemini sends body and returns the replies: one per SSE data frame for
// streamGenerateContent?alt=sse, the body for generateContent.
func postGemini(t *testing.T, url, body string) []geminiReply {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		require.FailNowf(t, "POST failed", "%s: %s: %s", url, resp.Status, b)
	}
	var out []geminiReply
	if !strings.Contains(url, "alt=sse") {
		var r geminiReply
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
		return append(out, r)
	}
	ct := resp.Header.Get("Content-Type")
	require.Equal(t, "text/event-stream", ct, "Content-Type %q", ct)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		require.True(t, ok, "unexpected SSE line %q (gemini-cli reads only data lines)", line)
		var r geminiReply
		require.NoError(t, json.Unmarshal([]byte(data), &r))
		out = append(out, r)
	}
	return out
}

func TestGeminiTurn(t *testing.T) {
	m := mockmodel.NewGemini(t, mockmodel.Script{Commands: []string{"echo hi"}})
	stream := m.URL() + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"

	got := postGemini(t, stream, geminiBody(true, geminiContext, geminiPrompt))
	require.Len(t, got, 1, "replies")
	require.Len(t, got[0].Candidates, 1, "replies %+v, want one frame with one candidate", got)
	c := got[0].Candidates[0]
	fc := c.Content.Parts[0].FunctionCall
	assert.Equal(t, "model", c.Content.Role, "reply %+v", c)
	if assert.NotNil(t, fc, "reply %+v, want a run_shell_command call of the script", c) {
		assert.Equal(t, mockmodel.GeminiShellTool, fc.Name, "the function called")
		assert.Equal(t, "echo hi", fc.Args["command"], "the function's command")
	}

	got = postGemini(t, stream, geminiBody(true, geminiContext, geminiPrompt, geminiCall, geminiResponse))
	p := got[0].Candidates[0].Content.Parts[0]
	if assert.Nil(t, p.FunctionCall, "after the function response: %+v, want the answer", p) {
		assert.Equal(t, mockmodel.DefaultAnswer, p.Text, "after the function response: %+v, want the answer", p)
	}
	// A new prompt starts the script again.
	got = postGemini(t, stream, geminiBody(true, geminiContext, geminiPrompt, geminiCall, geminiResponse, `{"role":"model","parts":[{"text":"done"}]}`, geminiPrompt))
	assert.NotNil(t, got[0].Candidates[0].Content.Parts[0].FunctionCall, "second prompt: %+v, want a call", got[0])
	// A request without the shell tool (the model router's classifier),
	// not streamed.
	got = postGemini(t, m.URL()+"/v1beta/models/gemini-2.5-flash-lite:generateContent", geminiBody(false, geminiPrompt))
	aux := got[0].Candidates[0].Content.Parts[0]
	assert.Equal(t, mockmodel.AuxText, aux.Text, "aux reply %+v", aux)
	want := []string{"tool run_shell_command", "answer", "tool run_shell_command", "aux"}
	for i, r := range m.Requests() {
		assert.Equal(t, want[i], r.Reply, "request %d reply %q, want %q", i, r.Reply, want[i])
	}
}
