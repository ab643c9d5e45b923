package realagent_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// clineResult is one element of the rawOutput of cline's run_commands: the
// command, its output (stdout, then "[stderr]" and stderr, after an
// "[Command exited with code N]" line when it failed) and whether it
// exited 0.
type clineResult struct {
	Query, Result, Error string
	Success              *bool
}

// TestClineSmoke runs a five-line command through cline, offline, with
// each client kind, and checks its shapes (docs/agents.md): the same
// messages for both clients (no terminal _meta, no content at all), the
// call announced by a tool_call_update, then the permission request, then
// in_progress, then the tool_call itself (status pending again), and one
// final update whose rawOutput lists each command with its whole output. A
// command that fails ends "completed" too, its failure only in rawOutput.
func TestClineSmoke(t *testing.T) {
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{fiveLines, clineFails}})
			agent := realagent.Cline(t, realagent.ClineOptions{ModelBaseURL: model.BaseURL()})
			c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
			got := replies(model.Requests())
			shell := "tool " + mockmodel.ClineShellTool
			assert.Equal(t, []string{shell, shell, "answer"}, got, "model replies: two run_commands calls and an answer")
			calls := c.ToolCalls()
			require.Len(t, calls, 2, "tool calls\n%s", c.Report())
			assert.Equal(t, "call_mock_1", calls[0].ID, "tool call id")
			updates, err := calls[0].Decoded()
			require.NoError(t, err)
			var kinds []string
			for i, u := range updates {
				kinds = append(kinds, u.SessionUpdate+"/"+u.Status)
				assert.False(t, u.HasContent, "update %d has content %v", i, u.Content)
				assert.Nil(t, u.Meta, "update %d has _meta %v", i, u.Meta)
			}
			want := []string{"tool_call_update/pending", "tool_call_update/in_progress", "tool_call/pending", "tool_call_update/completed"}
			require.Equal(t, want, kinds, "the call's updates (sessionUpdate/status)\n%s", c.Report())
			// The announcing update and the tool_call say the same.
			for _, i := range []int{0, 2} {
				u := updates[i]
				assert.Equal(t, "execute", u.Kind, "update %d kind", i)
				if assert.NotNil(t, u.Title, "update %d title", i) {
					assert.Equal(t, "run_commands: "+fiveLines, *u.Title, "update %d title: the tool and the command", i)
				}
				assert.JSONEq(t, `{"commands":[`+jsonString(fiveLines)+`]}`, string(u.RawInput), "update %d rawInput: the model's input, no directory", i)
			}
			var out []clineResult
			last := updates[len(updates)-1]
			if assert.NoError(t, json.Unmarshal(last.RawOutput, &out), "final rawOutput %s", last.RawOutput) && assert.Len(t, out, 1, "final rawOutput %s", last.RawOutput) {
				assert.Equal(t, fiveLines, out[0].Query, "rawOutput[0].query")
				assert.Equal(t, fiveLinesOutput, out[0].Result, "rawOutput[0].result")
				if assert.NotNil(t, out[0].Success, "rawOutput[0].success") {
					assert.True(t, *out[0].Success, "rawOutput[0].success")
				}
			}
			checkClinePermission(t, c, updates[0])
			checkClineFailure(t, calls[1])
			p := c.Problems()
			assert.Empty(t, p, "client problems: %q", p)
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// checkClinePermission: cline asks once, after the update that announces
// the call and before in_progress, with that update's members and three
// options.
func checkClinePermission(t *testing.T, c *acpclient.Client, announced acpclient.ToolUpdate) {
	t.Helper()
	perms := c.PermissionRequests()
	require.Len(t, perms, 2, "permission requests: one per command")
	var p struct {
		ToolCall acpclient.ToolUpdate `json:"toolCall"`
		Options  []struct{ OptionID, Kind string }
	}
	require.NoError(t, json.Unmarshal(perms[0], &p))
	tc := p.ToolCall
	var ids []string
	for _, o := range p.Options {
		ids = append(ids, o.OptionID+"/"+o.Kind)
	}
	assert.Equal(t, []string{"allow_once/allow_once", "allow_always/allow_always", "reject_once/reject_once"}, ids, "options")
	assert.Equal(t, announced.ToolCallID, tc.ToolCallID, "the permission's toolCallId")
	assert.Equal(t, "pending", tc.Status, "the permission's tool call status")
	assert.Equal(t, announced.Kind, tc.Kind, "the permission's tool call kind")
	assert.Equal(t, announced.Title, tc.Title, "the permission's tool call title")
	assert.JSONEq(t, string(announced.RawInput), string(tc.RawInput), "the permission's rawInput")
	// Its place: right after the announcing update.
	var order []string
	for _, l := range c.Lines() {
		switch {
		case bytes.Contains(l.Raw, []byte(`"session/request_permission"`)):
			order = append(order, "permission")
		case bytes.Contains(l.Raw, []byte(`"toolCallId"`)):
			var n struct {
				Params struct {
					Update struct{ SessionUpdate, Status string }
				}
			}
			_ = json.Unmarshal(l.Raw, &n)
			order = append(order, n.Params.Update.SessionUpdate+"/"+n.Params.Update.Status)
		}
	}
	i := slices.Index(order, "permission")
	assert.True(t, i == 1 && order[0] == "tool_call_update/pending" && order[2] == "tool_call_update/in_progress", "order %q: want the permission request between the announcing update and in_progress", order)
}

// clineFails is a command that writes to both streams and exits 3.
const clineFails = "echo out; echo err >&2; exit 3"

// checkClineFailure: a failed command ends "completed"; its rawOutput says
// it failed, with the exit code and both streams in its result.
func checkClineFailure(t *testing.T, call acpclient.ToolCall) {
	t.Helper()
	last, err := acpclient.DecodeToolUpdate(call.Last)
	require.NoError(t, err)
	assert.Equal(t, "completed", last.Status, "a failed command's final status")
	var out []clineResult
	if assert.NoError(t, json.Unmarshal(last.RawOutput, &out), "rawOutput %s", last.RawOutput) && assert.Len(t, out, 1, "rawOutput %s", last.RawOutput) {
		assert.Equal(t, clineFails, out[0].Query, "rawOutput[0].query")
		assert.Equal(t, "[Command exited with code 3]\nout\n\n[stderr]\nerr\n", out[0].Result, "rawOutput[0].result")
		assert.Equal(t, "Command exited with code 3", out[0].Error, "rawOutput[0].error")
		if assert.NotNil(t, out[0].Success, "rawOutput[0].success") {
			assert.False(t, *out[0].Success, "rawOutput[0].success")
		}
	}
}
