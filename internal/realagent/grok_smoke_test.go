package realagent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestGrokSmoke runs a command that writes a file through grok-build 1.0,
// offline, in its default mode and with --always-approve: it needs no
// sign-in against its custom models endpoint, advertises its blocking
// pre-tool hooks in initialize (docs/policy.md, "grok-build's hooks"), calls
// the model's command run_terminal_command, and asks permission before it
// runs one only in its default mode, with an always-option listed first.
func TestGrokSmoke(t *testing.T) {
	for _, alwaysApprove := range []bool{false, true} {
		name := map[bool]string{false: "default", true: "always-approve"}[alwaysApprove]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{"echo hi > made.txt"}})
			agent := realagent.Grok(t, realagent.GrokOptions{ModelBaseURL: model.BaseURL(), AlwaysApprove: alwaysApprove})
			c := acpclient.Run(t, clientOptions(agent, clients[0]), "write the file")
			assert.FileExists(t, filepath.Join(agent.Dir, "made.txt"), "the command ran")
			got := replies(model.Requests())
			assert.Contains(t, got, "tool "+mockmodel.GrokShellTool, "model replies")
			assert.Contains(t, got, "answer", "model replies")

			var init struct {
				AgentCapabilities struct {
					Meta struct {
						Hooks struct {
							BlockingEvents []string `json:"blockingEvents"`
							Decisions      []string `json:"decisions"`
						} `json:"x.ai/hooks"`
					} `json:"_meta"`
				} `json:"agentCapabilities"`
			}
			require.NoError(t, json.Unmarshal(c.InitializeResult(), &init), "initialize result")
			hooks := init.AgentCapabilities.Meta.Hooks
			assert.Contains(t, hooks.BlockingEvents, "pre_tool_use", "x.ai/hooks blockingEvents")
			assert.Contains(t, hooks.Decisions, "deny", "x.ai/hooks decisions")

			perms := c.PermissionRequests()
			if alwaysApprove {
				assert.Empty(t, perms, "--always-approve asks nothing")
			} else if assert.Len(t, perms, 1, "permission requests") {
				var p struct {
					ToolCall struct {
						Kind     string          `json:"kind"`
						RawInput json.RawMessage `json:"rawInput"`
					} `json:"toolCall"`
					Options []struct{ OptionID, Kind string } `json:"options"`
				}
				require.NoError(t, json.Unmarshal(perms[0], &p))
				assert.Equal(t, "execute", p.ToolCall.Kind, "the permission's kind")
				cmd, _ := readCommand(p.ToolCall.RawInput)
				assert.Equal(t, "echo hi > made.txt", cmd, "the permission's rawInput.command")
				var kinds []string
				for _, o := range p.Options {
					kinds = append(kinds, o.Kind)
				}
				assert.True(t, slices.Equal(kinds, []string{"allow_always", "allow_once", "reject_once", "reject_always"}), "option kinds %q", kinds)
			}
			if t.Failed() {
				t.Log(c.Report())
				b, _ := os.ReadFile(filepath.Join(agent.Home, ".grok", "logs", "unified.jsonl"))
				t.Logf("grok log tail: %.3000s", b[max(0, len(b)-3000):])
			}
		})
	}
}

// readCommand is rawInput.command.
func readCommand(raw json.RawMessage) (string, bool) {
	var in struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(raw, &in) != nil || in.Command == nil {
		return "", false
	}
	return *in.Command, true
}
