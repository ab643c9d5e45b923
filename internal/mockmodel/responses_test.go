package mockmodel_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
)

// responsesBody builds a request: tools offered, then input items.
func responsesBody(tools []string, input ...string) string {
	var ts []map[string]string
	for _, name := range tools {
		ts = append(ts, map[string]string{"type": "function", "name": name})
	}
	var items []json.RawMessage
	for _, it := range input {
		items = append(items, json.RawMessage(it))
	}
	b, _ := json.Marshal(map[string]any{"model": "mock-model", "stream": true, "tools": ts, "input": items})
	return string(b)
}

const (
	userMsg    = `{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`
	callOutput = `{"type":"function_call_output","call_id":"c","output":"ok"}`
)

const toolTurn = "response.created response.output_item.added response.output_item.done response.completed"

func TestResponsesPicksShellTool(t *testing.T) {
	const script = "echo hi"
	for _, tc := range []struct {
		tools    []string
		wantName string
		wantArgs string
	}{
		{[]string{"shell", "exec_command", "shell_command"}, "exec_command", `{"cmd":"echo hi"}`},
		{[]string{"shell", "shell_command"}, "shell_command", `{"command":"echo hi"}`},
		{[]string{"apply_patch", "shell"}, "shell", `{"command":["bash","-lc","echo hi"]}`},
	} {
		t.Run(tc.wantName, func(t *testing.T) {
			m := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{script}})
			events := post(t, m.BaseURL()+"/responses", responsesBody(tc.tools, userMsg))
			got := types(events)
			require.Equal(t, toolTurn, got, "events")
			added, done := events[1].Data, events[2].Data
			if assert.Equal(t, "function_call", field(added, "item", "type"), "output_item.added item = %v, want a function_call with empty arguments", added["item"]) {
				assert.Empty(t, field(added, "item", "arguments"), "output_item.added item = %v, want a function_call with empty arguments", added["item"])
			}
			if assert.Equal(t, tc.wantName, field(done, "item", "name"), "output_item.done item = %v, want %s %s", done["item"], tc.wantName, tc.wantArgs) {
				assert.Equal(t, tc.wantArgs, field(done, "item", "arguments"), "output_item.done item = %v, want %s %s", done["item"], tc.wantName, tc.wantArgs)
			}
			assert.Equal(t, "call_mock_1", field(done, "item", "call_id"), "call_id")
			assert.NotNil(t, field(events[3].Data, "response", "usage", "total_tokens"), "response.completed lacks usage: %v", events[3].Data)
			r := m.Requests()
			if assert.Len(t, r, 1, "requests = %+v", r) {
				if assert.Equal(t, "tool "+tc.wantName, r[0].Reply, "requests = %+v", r) {
					assert.Equal(t, "/v1/responses", r[0].URL, "requests = %+v", r)
				}
			}
		})
	}
}

func TestResponsesTurnSequence(t *testing.T) {
	m := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{"a", "b"}, Answer: "fin", AnswerDelay: -1})
	url, tools := m.BaseURL()+"/responses", []string{"exec_command"}
	steps := []struct {
		input    []string
		wantArgs string // empty: the answer
	}{
		{[]string{userMsg}, `{"cmd":"a"}`},
		{[]string{userMsg, callOutput}, `{"cmd":"b"}`},
		{[]string{userMsg, callOutput, callOutput}, ""},
		// A new prompt starts the script again.
		{[]string{userMsg, callOutput, callOutput, userMsg}, `{"cmd":"a"}`},
	}
	for i, s := range steps {
		events := post(t, url, responsesBody(tools, s.input...))
		if s.wantArgs != "" {
			got := field(events[2].Data, "item", "arguments")
			assert.Equal(t, s.wantArgs, got, "step %d: arguments %v, want %s", i, got, s.wantArgs)
			continue
		}
		want := "response.created response.output_item.added response.output_text.delta response.output_item.done response.completed"
		got := types(events)
		require.Equal(t, want, got, "step %d: events = %s, want %s", i, got, want)
		if assert.Equal(t, "fin", events[2].Data["delta"], "step %d: answer events %v / %v", i, events[2].Data, events[3].Data) {
			assert.Equal(t, "[map[annotations:[] text:fin type:output_text]]", fmt.Sprint(field(events[3].Data, "item", "content")), "step %d: answer events %v / %v", i, events[2].Data, events[3].Data)
		}
	}
	n := len(m.Requests())
	assert.Equal(t, len(steps), n, "recorded %d requests, want %d", n, len(steps))
}

func TestResponsesAnswerDelay(t *testing.T) {
	const delay = 200 * time.Millisecond
	m := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{"a"}, AnswerDelay: delay})
	start := time.Now()
	post(t, m.BaseURL()+"/responses", responsesBody([]string{"exec_command"}, userMsg, callOutput))
	d := time.Since(start)
	assert.GreaterOrEqual(t, d, delay, "answer after %v, want at least %v", d, delay)
}

func TestResponsesWithoutShellToolAnswers(t *testing.T) {
	m := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{"a"}})
	events := post(t, m.BaseURL()+"/responses", responsesBody(nil, userMsg))
	assert.Equal(t, mockmodel.DefaultAnswer, events[2].Data["delta"], "events = %v, want the text answer", events)
	r := m.Requests()
	assert.Equal(t, "aux", r[0].Reply, "reply")
}

func TestHeredocWrite(t *testing.T) {
	for _, tc := range []struct{ content, want, file string }{
		{"a $x `b`\n", "cat > f.txt <<'EOF'\na $x `b`\nEOF", "a $x `b`\n"},
		{"a", "cat > f.txt <<'EOF'\na\nEOF", "a\n"},
		{"", "cat > f.txt <<'EOF'\nEOF", ""},
	} {
		script := mockmodel.HeredocWrite("f.txt", tc.content)
		assert.Equal(t, tc.want, script, "HeredocWrite(%q) = %q, want %q", tc.content, script, tc.want)
		// The script must do what it says in a real shell.
		dir := t.TempDir()
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "bash: %s", out)
		b, err := os.ReadFile(filepath.Join(dir, "f.txt"))
		if assert.NoError(t, err) {
			assert.Equal(t, tc.file, string(b), "what bash wrote")
		}
	}
}
