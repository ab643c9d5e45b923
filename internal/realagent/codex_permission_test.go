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

// TestCodexAsksPermission: with approval_policy "untrusted" codex-acp asks
// before running the command. The request comes before the tool_call with
// unified exec only (docs/agents.md, "Permission requests"). The sandbox
// stays off: codex's workspace-write sandbox needs bubblewrap, and without it
// codex sometimes asks a second time to run unsandboxed.
func TestCodexAsksPermission(t *testing.T) {
	for _, version := range []string{"0.13", "0.16"} {
		for _, unified := range []bool{true, false} {
			t.Run(version+codexShellTool(version, unified), func(t *testing.T) {
				t.Parallel()
				model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{fiveLines}})
				agent := realagent.Codex(t, version, realagent.CodexOptions{
					ModelBaseURL: model.BaseURL(), ApprovalPolicy: "untrusted", UnifiedExec: unified,
				})
				c := acpclient.Run(t, clientOptions(agent, clients[0]), "print five lines")
				perms := c.PermissionRequests()
				require.Len(t, perms, 1, "got %d permission requests, want 1\n%s", len(perms), c.Report())
				var p struct {
					ToolCall struct {
						ToolCallID string `json:"toolCallId"`
						Status     string `json:"status"`
					} `json:"toolCall"`
					Options []struct {
						OptionID string `json:"optionId"`
						Kind     string `json:"kind"`
					} `json:"options"`
				}
				require.NoError(t, json.Unmarshal(perms[0], &p))
				if assert.NotEmpty(t, p.Options, "options = %+v, want approved (allow_once) first", p.Options) {
					if assert.Equal(t, "approved", p.Options[0].OptionID, "options = %+v, want approved (allow_once) first", p.Options) {
						assert.Equal(t, "allow_once", p.Options[0].Kind, "options = %+v, want approved (allow_once) first", p.Options)
					}
				}
				permAt, callAt := -1, -1
				for i, l := range c.Lines() {
					switch {
					case l.Method == "session/request_permission":
						permAt = i
					case l.Update != nil && l.Update.SessionUpdate == "tool_call" && callAt < 0:
						callAt = i
					}
				}
				// Observed: unified exec asks before announcing the call, the
				// shell tools announce it first.
				if assert.GreaterOrEqual(t, permAt, 0, "permission request at line %d, tool_call at %d; want the request first only with unified exec", permAt, callAt) {
					if assert.GreaterOrEqual(t, callAt, 0, "permission request at line %d, tool_call at %d; want the request first only with unified exec", permAt, callAt) {
						assert.Equal(t, unified, (permAt < callAt), "permission request at line %d, tool_call at %d; want the request first only with unified exec", permAt, callAt)
					}
				}
				// Observed: codex-acp numbers its requests with UUID strings.
				permID := c.Lines()[permAt].ID
				if assert.NotEmpty(t, permID, "permission request id") {
					assert.Equal(t, byte('"'), permID[0], "permission request id %s, want a string", permID)
				}
				id, updates := onlyToolCall(t, c)
				assert.Equal(t, id, p.ToolCall.ToolCallID, "permission for %q, tool call %q", p.ToolCall.ToolCallID, id)
				last := updates[len(updates)-1]
				assert.Equal(t, "completed", last.Status, "final status %q, want completed (the client allowed it)", last.Status)
				if t.Failed() {
					t.Log(c.Report())
				}
			})
		}
	}
}
