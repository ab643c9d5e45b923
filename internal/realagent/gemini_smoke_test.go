package realagent_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// fiveLinesLiteral prints fiveLinesOutput without a command substitution,
// which gemini-cli refuses to run ("Blocked: command substitution detected").
const fiveLinesLiteral = "for i in 1 2 3 4 5; do echo line $i; done"

// TestGeminiSmoke runs a five-line command through gemini-cli, offline,
// with each client kind, on its default PTY shell and without it, and
// checks its shapes (docs/agents.md): in "default" approval mode the
// permission request is the first the client hears of the call (there is
// no tool_call), one tool_call_update ends it, with no _meta whatever the
// client advertises, and the output is in it only without the PTY.
func TestGeminiSmoke(t *testing.T) {
	// The client makes no difference to gemini-cli (checked below: no
	// _meta either way), so each shell is run with one of them.
	for i, noPTY := range []bool{false, true} {
		shell := "pty"
		if noPTY {
			shell = "no-pty"
		}
		for _, cl := range clients[i : i+1] {
			t.Run(shell+"/"+cl.name, func(t *testing.T) {
				t.Parallel()
				model := mockmodel.NewGemini(t, mockmodel.Script{Commands: []string{fiveLinesLiteral}})
				agent := realagent.Gemini(t, realagent.GeminiOptions{ModelURL: model.URL(), NoPTY: noPTY})
				c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
				got := replies(model.Requests())
				assert.True(t, slices.Equal(got, []string{"tool " + mockmodel.GeminiShellTool, "answer"}), "model replies = %q, want a shell call and an answer", got)
				calls := c.ToolCalls()
				require.Len(t, calls, 1, "%d tool calls, want 1\n%s", len(calls), c.Report())
				id := calls[0].ID
				checkGeminiPermission(t, c, id)
				updates, err := calls[0].Decoded()
				require.NoError(t, err)
				require.Len(t, updates, 1, "updates")
				require.Equal(t, "tool_call_update", updates[0].SessionUpdate, "updates %+v, want one tool_call_update", updates)
				u := updates[0]
				assert.Equal(t, "completed", u.Status, "final status")
				assert.Equal(t, "execute", u.Kind, "final kind")
				if assert.NotNil(t, u.Title, "final title") {
					assert.Equal(t, fiveLinesLiteral, *u.Title, "final title")
				}
				if assert.Nil(t, u.Meta, "final update has _meta %v, rawInput %s, rawOutput %s; want none", u.Meta, u.RawInput, u.RawOutput) {
					if assert.Nil(t, u.RawInput, "final update has _meta %v, rawInput %s, rawOutput %s; want none", u.Meta, u.RawInput, u.RawOutput) {
						assert.Nil(t, u.RawOutput, "final update has _meta %v, rawInput %s, rawOutput %s; want none", u.Meta, u.RawInput, u.RawOutput)
					}
				}
				want := ""
				if noPTY {
					want = claudeOutput // trimmed, unfenced
				}
				if assert.True(t, u.HasContent, "final content %+v (text %q), want %q", u.Content, u.Text(), want) {
					assert.Equal(t, want, u.Text(), "final content %+v (text %q), want %q", u.Content, u.Text(), want)
				}
				p := c.Problems()
				assert.Empty(t, p, "client problems: %q", p)
				if t.Failed() {
					t.Log(c.Report())
				}
			})
		}
	}
}

// checkGeminiPermission: "default" mode asks once, before anything else is
// said about the call, with the command as the title and the model's
// description in the content.
func checkGeminiPermission(t *testing.T, c *acpclient.Client, id string) {
	t.Helper()
	tc, ids := onlyPermission(t, c)
	want := []string{"proceed_always", "proceed_once", "cancel"}
	assert.True(t, slices.Equal(ids, want), "options %q, want %q", ids, want)
	assert.Equal(t, id, tc.ToolCallID, "the permission's toolCallId")
	assert.Equal(t, "pending", tc.Status, "the permission's tool call status")
	assert.Equal(t, "execute", tc.Kind, "the permission's tool call kind")
	if assert.NotNil(t, tc.Title, "the permission's tool call title") {
		assert.Equal(t, fiveLinesLiteral, *tc.Title, "the permission's tool call title")
	}
}
