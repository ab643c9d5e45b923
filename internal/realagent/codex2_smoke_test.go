package realagent_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestCodex2Smoke runs a five-line command through codex-acp 2.6 (the ACP registry's Codex,
// @agentclientprotocol/codex-acp) for each kind of client, straight to the agent, and checks
// the shapes docs/agents.md describes ("codex-acp (TypeScript) 2.x"): exec_command with the
// bare script and its cwd, a terminal for every client, the output as chunks under
// terminal_output for a client that declared it and terminal_output_delta for any other
// (asked or not), and an end of only status and terminal_exit: no content, no rawOutput.
func TestCodex2Smoke(t *testing.T) {
	for _, cl := range []struct {
		client
		key string // the _meta key the output comes under
	}{
		{clients[0], "terminal_output_delta"},
		{clients[1], "terminal_output"},
		{client{"delta", `{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"_meta":{"terminal_output_delta":true}}`, true}, "terminal_output_delta"},
	} {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{fiveLines}})
			agent := realagent.Codex(t, "2.6", realagent.CodexOptions{ModelBaseURL: model.BaseURL()})
			c := acpclient.Run(t, clientOptions(agent, cl.client), "print five lines")
			assert.Equal(t, []string{"tool exec_command", "answer"}, replies(model.Requests()), "model replies")
			id, updates := onlyToolCall(t, c)
			first, last := updates[0], updates[len(updates)-1]
			assert.Equal(t, "execute", first.Kind)
			assert.Equal(t, "in_progress", first.Status)
			var in map[string]string
			require.NoError(t, json.Unmarshal(first.RawInput, &in), "rawInput")
			assert.Equal(t, map[string]string{"command": fiveLines, "cwd": agent.Dir}, in, "rawInput: the bare script and its directory")
			assert.True(t, terminalContent(first, id), "tool_call content = %+v, want one terminal %s", first.Content, id)
			info, ok := first.Terminal("terminal_info")
			if assert.True(t, ok, "terminal_info for every client") {
				assert.Equal(t, id, info.TerminalID)
			}
			assert.Equal(t, "completed", last.Status)
			assert.Nil(t, last.RawOutput, "a command's end has no rawOutput")
			assert.False(t, last.HasContent, "a command's end has no content")
			exit, ok := last.Terminal("terminal_exit")
			if assert.True(t, ok, "terminal_exit") && assert.NotNil(t, exit.ExitCode) {
				assert.Equal(t, 0, *exit.ExitCode)
			}
			var data string
			for i, u := range updates {
				for _, key := range []string{"terminal_output", "terminal_output_delta"} {
					if m, ok := u.Terminal(key); ok {
						assert.Equal(t, cl.key, key, "update %d streams under %s", i, key)
						data += m.Data
					}
				}
				assert.Empty(t, u.Text(), "update %d has text content: 2.x sends none for a command", i)
			}
			// Unified exec on a PTY streams what the command prints after its first poll; a fast
			// command may print everything before it (as codex-acp 0.x's exec_command).
			assert.True(t, isLineRun(data, fiveLinesOutput), "streamed data = %q, want some lines of the output", data)
			assert.Empty(t, c.Problems())
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// TestCodex2AsksPermission: codex-acp 2.x takes approval from its own mode, not config.toml. In
// workspace-write, a command the model asks to run outside the sandbox is asked for, after its
// tool_call, with the bare script and its cwd as rawInput and the options allow_once and
// cancel.
func TestCodex2AsksPermission(t *testing.T) {
	model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{fiveLines}, Escalate: true})
	agent := realagent.Codex(t, "2.6", realagent.CodexOptions{ModelBaseURL: model.BaseURL(), AgentMode: "workspace-write"})
	c := acpclient.Run(t, clientOptions(agent, clients[0]), "print five lines")
	perms := c.PermissionRequests()
	require.Len(t, perms, 1, "got %d permission requests, want 1\n%s", len(perms), c.Report())
	var p struct {
		ToolCall struct {
			ToolCallID string            `json:"toolCallId"`
			Status     string            `json:"status"`
			Kind       string            `json:"kind"`
			RawInput   map[string]string `json:"rawInput"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	require.NoError(t, json.Unmarshal(perms[0], &p))
	id, updates := onlyToolCall(t, c)
	assert.Equal(t, id, p.ToolCall.ToolCallID)
	assert.Equal(t, "pending", p.ToolCall.Status)
	assert.Equal(t, "execute", p.ToolCall.Kind)
	assert.Equal(t, map[string]string{"command": fiveLines, "cwd": agent.Dir}, p.ToolCall.RawInput)
	var ids []string
	for _, o := range p.Options {
		ids = append(ids, o.OptionID+"/"+o.Kind)
	}
	assert.Contains(t, ids, "allow_once/allow_once")
	assert.Contains(t, ids, "cancel/reject_once")
	permAt, callAt := -1, -1
	for i, l := range c.Lines() {
		switch {
		case l.Method == "session/request_permission":
			permAt = i
		case l.Update != nil && l.Update.SessionUpdate == "tool_call" && callAt < 0:
			callAt = i
		}
	}
	assert.Less(t, callAt, permAt, "the tool_call (line %d) comes before the request (line %d)", callAt, permAt)
	assert.Equal(t, "completed", updates[len(updates)-1].Status, "the client allowed it")
}
