package realagent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// fiveLines is the smoke command and fiveLinesOutput what it prints.
const (
	fiveLines       = "for i in $(seq 1 5); do echo line $i; done"
	fiveLinesOutput = "line 1\nline 2\nline 3\nline 4\nline 5\n"
)

// client is one kind of editor the smoke tests play.
type client struct {
	name         string
	capabilities string
	termOutput   bool // advertises _meta.terminal_output
}

var clients = []client{
	{"plain", acpclient.PlainCapabilities, false},
	{"zed-like", acpclient.ZedLikeCapabilities, true},
}

func clientOptions(a *realagent.Agent, c client) acpclient.Options {
	return acpclient.Options{Argv: a.Argv, Env: a.Env, Dir: a.Dir, Capabilities: c.capabilities}
}

// onlyToolCall returns the decoded updates of the run's single tool call.
func onlyToolCall(t *testing.T, c *acpclient.Client) (string, []acpclient.ToolUpdate) {
	t.Helper()
	calls := c.ToolCalls()
	require.Len(t, calls, 1, "got %d tool calls, want 1\n%s", len(calls), c.Report())
	updates, err := calls[0].Decoded()
	require.NoError(t, err)
	require.NotEmpty(t, updates, "tool call %s does not start with tool_call\n%s", calls[0].ID, c.Report())
	require.Equal(t, "tool_call", updates[0].SessionUpdate, "tool call %s does not start with tool_call\n%s", calls[0].ID, c.Report())
	for i, u := range updates[1:] {
		assert.Equal(t, "tool_call_update", u.SessionUpdate, "update %d is %q, want tool_call_update", i+1, u.SessionUpdate)
	}
	return calls[0].ID, updates
}

// terminalContent reports whether content is exactly one terminal item for id.
func terminalContent(u acpclient.ToolUpdate, id string) bool {
	return len(u.Content) == 1 && u.Content[0].Type == "terminal" && u.Content[0].TerminalID == id
}

func hasTerminalMeta(u acpclient.ToolUpdate) bool {
	for _, key := range []string{"terminal_info", "terminal_output", "terminal_output_delta", "terminal_exit"} {
		if _, ok := u.Meta[key]; ok {
			return true
		}
	}
	return false
}

// codexRawOutput is the part of codex's ExecCommandEndEvent the tests read.
type codexRawOutput struct {
	Stdout           string `json:"stdout"`
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         int    `json:"exit_code"`
	FormattedOutput  string `json:"formatted_output"`
}

func decodeCodexRawOutput(t *testing.T, u acpclient.ToolUpdate) codexRawOutput {
	t.Helper()
	var out codexRawOutput
	require.NoError(t, json.Unmarshal(u.RawOutput, &out), "codex rawOutput: %.300s", u.RawOutput)
	return out
}

// codexFence is how codex-acp shows output without the extension
// (docs/agents.md, "The fence"): the output with trailing newlines
// trimmed, fenced sh.
func codexFence(output string) string {
	return "```sh\n" + strings.TrimRight(output, "\n") + "\n```\n"
}

// isLineRun reports whether got is empty or whole lines of want, in a row.
func isLineRun(got, want string) bool {
	return got == "" || strings.Contains("\n"+want, "\n"+got) && strings.HasSuffix(got, "\n")
}

// fenceBody is the text inside codexFence, with its newline back.
func fenceBody(fenced string) string {
	body, ok := strings.CutPrefix(fenced, "```sh\n")
	if !ok {
		return "\x00not fenced: " + fenced
	}
	body, ok = strings.CutSuffix(body, "\n```\n")
	if !ok {
		return "\x00not fenced: " + fenced
	}
	return body + "\n"
}
