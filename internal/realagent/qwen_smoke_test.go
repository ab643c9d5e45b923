package realagent_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestQwenSmoke runs a five-line command through qwen-code, offline, with
// each client kind, asking permission, and checks its shapes
// (docs/agents.md): a tool_call with an empty rawInput, the permission
// request naming the command, no _meta terminals whatever the client
// advertises, no output before the end, and one final update whose text is
// the model-facing report and whose rawOutput holds the output and the
// directory.
func TestQwenSmoke(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{fiveLines}})
			agent := realagent.Qwen(t, realagent.QwenOptions{ModelBaseURL: model.BaseURL()})
			c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
			// No other model call: the launcher turns off the memory
			// subagent, which would otherwise run after the turn.
			got := replies(model.Requests())
			assert.True(t, slices.Equal(got, []string{"tool " + mockmodel.GeminiShellTool, "answer"}), "model replies = %q, want a run_shell_command call and an answer", got)
			id, updates := onlyToolCall(t, c)
			assert.Equal(t, "call_mock_1", id, "tool call id")
			first, last := updates[0], updates[len(updates)-1]
			assert.Equal(t, "execute", first.Kind, "tool_call kind")
			assert.Equal(t, "pending", first.Status, "tool_call status")
			if assert.NotNil(t, first.Title, "tool_call title") {
				assert.Equal(t, "Shell", *first.Title, "tool_call title")
			}
			assert.JSONEq(t, `{}`, string(first.RawInput), "tool_call rawInput")
			assert.JSONEq(t, `"run_shell_command"`, string(first.Meta["toolName"]), "tool_call _meta.toolName")
			for i, u := range updates {
				assert.False(t, hasTerminalMeta(u), "update %d has terminal _meta %v", i, u.Meta)
				if i > 0 && i < len(updates)-1 {
					assert.Empty(t, u.Text(), "update %d shows output before the end", i)
				}
			}
			assert.Len(t, updates, 2, "updates: the tool_call and the final update")
			if assert.Equal(t, "completed", last.Status, "final status") {
				// The text is what the model is told, the output inside it
				// with its last newline trimmed.
				txt := last.Text()
				assert.True(t, strings.HasPrefix(txt, "Command: "+fiveLines+"\nDirectory: (root)\nOutput: "+claudeOutput+"\n"), "final text %q, want the command, (root) and the output", txt)
				assert.Contains(t, txt, "\nExit Code: 0\n", "final text")
			}
			var out struct {
				Type, Output, Directory string
				ExitCode                *int
			}
			if assert.NoError(t, json.Unmarshal(last.RawOutput, &out), "final rawOutput %s", last.RawOutput) {
				assert.Equal(t, "shell_result", out.Type, "rawOutput.type")
				assert.Equal(t, claudeOutput, out.Output, "rawOutput.output")
				assert.Equal(t, agent.Dir, out.Directory, "rawOutput.directory")
				if assert.NotNil(t, out.ExitCode, "rawOutput.exitCode") {
					assert.Equal(t, 0, *out.ExitCode, "rawOutput.exitCode")
				}
			}
			checkQwenPermission(t, c, id)
			p := c.Problems()
			assert.Empty(t, p, "client problems: %q", p)
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// checkQwenPermission: "default" mode asks once, after the tool_call, with
// the command (and no directory) in rawInput and the command and its
// description in the title.
func checkQwenPermission(t *testing.T, c *acpclient.Client, id string) {
	t.Helper()
	tc, ids := onlyPermission(t, c)
	want := []string{"proceed_always_project", "proceed_always_user", "proceed_once", "cancel"}
	assert.True(t, slices.Equal(ids, want), "options %q, want %q", ids, want)
	assert.Equal(t, id, tc.ToolCallID, "the permission's toolCallId")
	assert.Equal(t, "pending", tc.Status, "the permission's tool call status")
	assert.Equal(t, "execute", tc.Kind, "the permission's tool call kind")
	if assert.NotNil(t, tc.Title, "the permission's tool call title") {
		assert.Equal(t, fiveLines+" (Run the mock model's command)", *tc.Title, "the permission's tool call title")
	}
	var in map[string]any
	if assert.NoError(t, json.Unmarshal(tc.RawInput, &in), "the permission's rawInput %s", tc.RawInput) {
		assert.Equal(t, map[string]any{"command": fiveLines, "description": "Run the mock model's command"}, in, "the permission's rawInput")
	}
}
