package realagent_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestKiloSmoke runs a five-line command through kilo, offline, with each
// client kind, asking permission, and checks its shapes (docs/agents.md):
// opencode's, as it is a fork of it (no terminal _meta, output as text
// snapshots of everything so far, the whole output in the final update's
// rawOutput), but for the titles: "bash", then the command, then the
// model's description.
func TestKiloSmoke(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{fiveLines}})
			agent := realagent.Kilo(t, realagent.KiloOptions{ModelBaseURL: model.BaseURL(), Ask: true})
			c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
			// Besides, it asks for a session title ("aux").
			got := replies(model.Requests())
			if assert.True(t, slices.Contains(got, "tool "+mockmodel.ChatShellTool), "model replies = %q, want a bash call and an answer", got) {
				assert.True(t, slices.Contains(got, "answer"), "model replies = %q, want a bash call and an answer", got)
			}
			id, updates := onlyToolCall(t, c)
			assert.Equal(t, "call_mock_1", id, "tool call id")
			first, last := updates[0], updates[len(updates)-1]
			assert.Equal(t, "execute", first.Kind, "tool_call kind")
			if assert.NotNil(t, first.Title, "tool_call title") {
				assert.Equal(t, "bash", *first.Title, "tool_call title")
			}
			assert.JSONEq(t, `{"cwd":`+jsonString(agent.Dir)+`}`, string(first.RawInput), "tool_call rawInput")
			var in struct{ Command, Description, Cwd string }
			for i, u := range updates {
				assert.False(t, hasTerminalMeta(u), "update %d has terminal _meta %v", i, u.Meta)
				_ = json.Unmarshal(u.RawInput, &in)
				txt := u.Text()
				if u.Status == "in_progress" {
					// Every snapshot is a prefix of the output.
					if txt != "" {
						assert.True(t, isLineRun(txt, fiveLinesOutput), "snapshot %q is not a run of output lines", txt)
					}
					if assert.NotNil(t, u.Title, "update %d title", i) {
						assert.Equal(t, fiveLines, *u.Title, "update %d title: the command", i)
					}
				}
			}
			if assert.Equal(t, fiveLines, in.Command, "rawInput = %+v, want the command, its description and the session cwd", in) {
				if assert.Equal(t, agent.Dir, in.Cwd, "rawInput = %+v, want the command, its description and the session cwd", in) {
					assert.NotEmpty(t, in.Description, "rawInput = %+v, want the command, its description and the session cwd", in)
				}
			}
			var out struct {
				Output   string
				Metadata struct {
					Output string
					Exit   int
				}
			}
			if assert.NoError(t, json.Unmarshal(last.RawOutput, &out), "final rawOutput %s", last.RawOutput) {
				assert.Equal(t, fiveLinesOutput, out.Metadata.Output, "final rawOutput's metadata.output")
				assert.Equal(t, 0, out.Metadata.Exit, "final rawOutput's metadata.exit")
			}
			if assert.Equal(t, "completed", last.Status, "final status %q, text %q; want completed and the output", last.Status, last.Text()) {
				assert.Equal(t, fiveLinesOutput, last.Text(), "final status %q, text %q; want completed and the output", last.Status, last.Text())
			}
			if assert.NotNil(t, last.Title, "final title") {
				assert.Equal(t, in.Description, *last.Title, "final title: the model's description")
			}
			// The same options as opencode's, for the call.
			checkOpencodePermission(t, c, id)
			p := c.Problems()
			assert.Empty(t, p, "client problems: %q", p)
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
