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

// TestOpencodeSmoke runs a five-line command through opencode, offline,
// with each client kind, asking permission, and checks its shapes
// (docs/agents.md): the same calls for both clients (no terminal _meta),
// output as text snapshots of everything so far, and the whole output in
// the final update's rawOutput.
func TestOpencodeSmoke(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{fiveLines}})
			agent := realagent.Opencode(t, realagent.OpencodeOptions{ModelBaseURL: model.BaseURL(), Ask: true})
			c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
			// Besides, it asks for a session title ("aux").
			got := replies(model.Requests())
			if assert.True(t, slices.Contains(got, "tool "+mockmodel.ChatShellTool), "model replies = %q, want a bash call and an answer", got) {
				assert.True(t, slices.Contains(got, "answer"), "model replies = %q, want a bash call and an answer", got)
			}
			id, updates := onlyToolCall(t, c)
			assert.Equal(t, "call_mock_1", id, "tool call id")
			first, last := updates[0], updates[len(updates)-1]
			if assert.Equal(t, "execute", first.Kind, "tool_call kind/title = %q/%v, want execute/bash", first.Kind, first.Title) {
				if assert.NotNil(t, first.Title, "tool_call kind/title = %q/%v, want execute/bash", first.Kind, first.Title) {
					assert.Equal(t, "bash", *first.Title, "tool_call kind/title = %q/%v, want execute/bash", first.Kind, first.Title)
				}
			}
			var in struct{ Command, Description, Cwd string }
			for _, u := range updates {
				assert.False(t, hasTerminalMeta(u), "update has terminal _meta %v", u.Meta)
				_ = json.Unmarshal(u.RawInput, &in)
				// Every snapshot is a prefix of the output.
				txt := u.Text()
				if u.Status == "in_progress" && txt != "" {
					assert.True(t, isLineRun(txt, fiveLinesOutput), "snapshot %q is not a run of output lines", txt)
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
					Output    string
					Exit      int
					Truncated bool
				}
			}
			if assert.NoError(t, json.Unmarshal(last.RawOutput, &out), "final rawOutput %s", last.RawOutput) {
				assert.Equal(t, fiveLinesOutput, out.Metadata.Output, "final rawOutput's metadata.output")
				assert.Equal(t, 0, out.Metadata.Exit, "final rawOutput's metadata.exit")
			}
			if assert.Equal(t, "completed", last.Status, "final status %q, text %q; want completed and the output", last.Status, last.Text()) {
				assert.Equal(t, fiveLinesOutput, last.Text(), "final status %q, text %q; want completed and the output", last.Status, last.Text())
			}
			checkOpencodePermission(t, c, id)
			p := c.Problems()
			assert.Empty(t, p, "client problems: %q", p)
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

func checkOpencodePermission(t *testing.T, c *acpclient.Client, id string) {
	t.Helper()
	tc, ids := onlyPermission(t, c)
	want := []string{"once", "always", "reject"}
	if assert.True(t, slices.Equal(ids, want), "permission for %q with options %q, want %s with %q", tc.ToolCallID, ids, id, want) {
		assert.Equal(t, id, tc.ToolCallID, "permission for %q with options %q, want %s with %q", tc.ToolCallID, ids, id, want)
	}
}
