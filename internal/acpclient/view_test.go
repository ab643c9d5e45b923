package acpclient

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestViewModels: what each client model shows of one call after the
// same lines.
func TestViewModels(t *testing.T) {
	upd := func(members string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c",` + members + `}}}`
	}
	data := func(key, d string) string {
		return upd(`"_meta":{"` + key + `":{"terminal_id":"c","data":` + js(d) + `}}`)
	}
	terminal := upd(`"content":[{"type":"content","content":{"type":"text","text":"$ ls\n"}},{"type":"terminal","terminalId":"c"}]`)
	cases := []struct {
		name  string
		lines []string
		want  map[Model]string
	}{
		{"content replaces content", []string{upd(`"content":[{"type":"content","content":{"type":"text","text":"a"}}]`), upd(`"content":[{"type":"content","content":{"type":"text","text":"b"}}]`)},
			map[Model]string{PlainModel: "b", ZedModel: "b", DeltaModel: "b"}},
		{"terminal_output appends, or replaces for a delta client", []string{terminal, data("terminal_output", "x\n"), data("terminal_output", "y\n")},
			map[Model]string{PlainModel: "$ ls\n", ZedModel: "$ ls\nx\ny\n", DeltaModel: "$ ls\ny\n"}},
		{"terminal_output_delta appends for a delta client only", []string{terminal, data("terminal_output_delta", "x\n"), data("terminal_output_delta", "y\n")},
			map[Model]string{PlainModel: "$ ls\n", ZedModel: "$ ls\n", DeltaModel: "$ ls\nx\ny\n"}},
		{"an update without content keeps it", []string{terminal, data("terminal_output", "x\n"), upd(`"status":"completed"`)},
			map[Model]string{PlainModel: "$ ls\n", ZedModel: "$ ls\nx\n", DeltaModel: "$ ls\nx\n"}},
	}
	for _, c := range cases {
		for model, want := range c.want {
			t.Run(c.name+"/"+model.String(), func(t *testing.T) {
				v := NewView(model)
				for _, l := range c.lines {
					require.NoError(t, v.Line([]byte(l)))
				}
				assert.Equal(t, want, v.Shown(CallKey{"s", "c"}))
			})
		}
	}
}

// TestLosses: what Losses reports, and what it does not.
func TestLosses(t *testing.T) {
	text := func(s string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":[{"type":"content","content":{"type":"text","text":` + js(s) + `}}]}}}`
	}
	view := func(line string) *View {
		v := NewView(PlainModel)
		require.NoError(t, v.Line([]byte(line)))
		return v
	}
	direct := view(text("```sh\nline 1\nline 2\n```\n"))
	for _, c := range []struct {
		name, proxied string
		lost          bool
	}{
		{"the same", text("```sh\nline 1\nline 2\n```\n"), false},
		{"more, fenced otherwise", text("```console\nline 0\nline 1\nline 2\nline 3\n```"), false},
		{"a live tail", text("```sh\n… 1 earlier lines not shown (live tail) …\nline 2\n```\n"), true},
		{"twice", text("line 1\nline 2\nline 1\nline 2"), true},
		{"in another order", text("line 2\nline 1"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.lost, len(Losses(direct, view(c.proxied))) > 0)
		})
	}
}

// js quotes s as a JSON string.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
