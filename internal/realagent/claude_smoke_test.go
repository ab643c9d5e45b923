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

// TestClaudeSmoke runs a five-line command through claude-agent-acp 0.23.1
// and 0.101 with each client kind and checks the shapes docs/agents.md
// describes.
func TestClaudeSmoke(t *testing.T) {
	for _, version := range realagent.ClaudeVersions {
		for _, cl := range clients {
			t.Run(version+"/"+cl.name, func(t *testing.T) {
				t.Parallel()
				model := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{fiveLines}})
				agent := realagent.Claude(t, realagent.ClaudeOptions{Version: version, ModelURL: model.URL()})
				c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
				got := replies(model.Requests())
				if assert.True(t, slices.Contains(got, "tool Bash"), "model replies = %q, want a Bash call and an answer", got) {
					assert.True(t, slices.Contains(got, "answer"), "model replies = %q, want a Bash call and an answer", got)
				}
				id, updates := onlyToolCall(t, c)
				checkClaudeCall(t, version, cl.termOutput, id, updates)
				checkClaudePermission(t, c, id, claudeOptionIDs[version])
				p := c.Problems()
				assert.Empty(t, p, "client problems: %q", p)
				if t.Failed() {
					t.Log(c.Report())
				}
			})
		}
	}
}

// claudeOutput is fiveLinesOutput as claude reports it: trimmed.
const claudeOutput = "line 1\nline 2\nline 3\nline 4\nline 5"

// claudeOptionIDs are the permission options each version offers for Bash
// in "default" mode.
var claudeOptionIDs = map[string][]string{
	"0.23":  {"allow_always", "allow", "reject"},
	"0.101": {"allow-once", "reject"},
}

func checkClaudeCall(t *testing.T, version string, termOutput bool, id string, updates []acpclient.ToolUpdate) {
	t.Helper()
	first, last := updates[0], updates[len(updates)-1]
	if assert.Equal(t, "execute", first.Kind, "tool_call kind/status = %q/%q, want execute/pending", first.Kind, first.Status) {
		assert.Equal(t, "pending", first.Status, "tool_call kind/status = %q/%q, want execute/pending", first.Kind, first.Status)
	}
	var tool struct {
		ClaudeCode struct {
			ToolName string `json:"toolName"`
		} `json:"claudeCode"`
	}
	b, err := json.Marshal(first.Meta)
	if assert.NoError(t, err, "tool_call _meta = %v, want claudeCode.toolName Bash", first.Meta) {
		if assert.NoError(t, json.Unmarshal(b, &tool), "tool_call _meta = %v, want claudeCode.toolName Bash", first.Meta) {
			assert.Equal(t, "Bash", tool.ClaudeCode.ToolName, "tool_call _meta = %v, want claudeCode.toolName Bash", first.Meta)
		}
	}
	assert.True(t, hasClaudeCommand(updates), "no update carries rawInput.command = the script")
	assert.Equal(t, "completed", last.Status, "final status")
	// With the extension, 0.101's final update is only the status and
	// terminal_exit: the output went out as terminal_output.
	if version == "0.23" || !termOutput {
		var rawOutput string
		if assert.NoError(t, json.Unmarshal(last.RawOutput, &rawOutput), "final rawOutput %s", last.RawOutput) {
			assert.Equal(t, claudeOutput, rawOutput, "final rawOutput")
		}
	} else {
		assert.Nil(t, last.RawOutput, "the final update's rawOutput")
		assert.False(t, last.HasContent, "the final update has content %+v", last.Content)
	}

	if !termOutput {
		if assert.True(t, first.HasContent, "tool_call content = %+v, want []", first.Content) {
			assert.Empty(t, first.Content, "tool_call content")
		}
		for i, u := range updates {
			assert.False(t, hasTerminalMeta(u), "update %d has terminal _meta %v without the capability", i, u.Meta)
		}
		got, want := last.Text(), "```console\n"+claudeOutput+"\n```"
		assert.Equal(t, want, got, "final content")
		return
	}
	if assert.True(t, terminalContent(first, id), "tool_call / final content = %+v / %+v, want one terminal %s", first.Content, last.Content, id) {
		assert.False(t, version == "0.23" && !terminalContent(last, id), "tool_call / final content = %+v / %+v, want one terminal %s", first.Content, last.Content, id)
	}
	info, ok := first.Terminal("terminal_info")
	if assert.True(t, ok, "tool_call _meta.terminal_info = %+v (present %v), want terminal_id %s", info, ok, id) {
		assert.Equal(t, id, info.TerminalID, "tool_call _meta.terminal_info = %+v (present %v), want terminal_id %s", info, ok, id)
	}
	// No live streaming: the whole output arrives as one terminal_output.
	data := acpclient.TerminalData(updates)
	assert.Equal(t, claudeOutput, data, "terminal_output data")
	exit, ok := last.Terminal("terminal_exit")
	if assert.True(t, ok, "final _meta.terminal_exit") && assert.NotNil(t, exit.ExitCode, "final _meta.terminal_exit %+v", exit) {
		assert.Equal(t, 0, *exit.ExitCode, "final _meta.terminal_exit.exit_code")
	}
}

func hasClaudeCommand(updates []acpclient.ToolUpdate) bool {
	for _, u := range updates {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(u.RawInput, &in) == nil && in.Command == fiveLines {
			return true
		}
	}
	return false
}

// checkClaudePermission: default mode asks once for Bash, with the
// version's options, and the client picked the first allow option.
func checkClaudePermission(t *testing.T, c *acpclient.Client, id string, want []string) {
	t.Helper()
	tc, ids := onlyPermission(t, c)
	if assert.Equal(t, id, tc.ToolCallID, "permission for %q with options %q, want %s with %q", tc.ToolCallID, ids, id, want) {
		assert.True(t, slices.Equal(ids, want), "permission for %q with options %q, want %s with %q", tc.ToolCallID, ids, id, want)
	}
}
