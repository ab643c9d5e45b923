package realagent_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestCodexSmoke runs a five-line command through each codex-acp version,
// shell tool and client kind, straight to the agent, and checks the tool
// call has the shape docs/agents.md describes ("codex-acp (Rust)").
func TestCodexSmoke(t *testing.T) {
	for _, version := range []string{"0.13", "0.16"} {
		for _, unified := range []bool{true, false} {
			for _, cl := range clients {
				tool := codexShellTool(version, unified)
				t.Run(fmt.Sprintf("%s/%s/%s", version, tool, cl.name), func(t *testing.T) {
					t.Parallel()
					model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{fiveLines}})
					agent := realagent.Codex(t, version, realagent.CodexOptions{
						ModelBaseURL: model.BaseURL(), UnifiedExec: unified,
					})
					c := acpclient.Run(t, clientOptions(agent, cl), "print five lines")
					got := replies(model.Requests())
					assert.True(t, slices.Equal(got, []string{"tool " + tool, "answer"}), "model replies = %q, want the %s call then the answer", got, tool)
					id, updates := onlyToolCall(t, c)
					checkCodexCall(t, codexCase{version: version, unified: unified, termOutput: cl.termOutput}, id, updates)
					p := c.Problems()
					assert.Empty(t, p, "client problems: %q", p)
					if t.Failed() {
						t.Log(c.Report())
					}
				})
			}
		}
	}
}

// codexShellTool is the tool the model gets (docs/agents.md, "The model's
// shell tools").
func codexShellTool(version string, unified bool) string {
	switch {
	case unified:
		return "exec_command"
	case version == "0.13":
		return "shell"
	}
	return "shell_command"
}

func replies(reqs []mockmodel.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Reply)
	}
	return out
}

type codexCase struct {
	version    string
	unified    bool
	termOutput bool
}

func checkCodexCall(t *testing.T, tc codexCase, id string, updates []acpclient.ToolUpdate) {
	t.Helper()
	first, last := updates[0], updates[len(updates)-1]

	if assert.Equal(t, "execute", first.Kind, "tool_call kind/status = %q/%q, want execute/in_progress", first.Kind, first.Status) {
		assert.Equal(t, "in_progress", first.Status, "tool_call kind/status = %q/%q, want execute/in_progress", first.Kind, first.Status)
	}
	if assert.NotNil(t, first.Title, "tool_call title") {
		assert.Equal(t, fiveLines, *first.Title, "tool_call title = %v, want the script", first.Title)
	}
	var in struct {
		Command []string `json:"command"`
	}
	if assert.NoError(t, json.Unmarshal(first.RawInput, &in), "rawInput") && assert.Len(t, in.Command, 3, "rawInput.command %q, want [shell -lc script]", in.Command) {
		assert.Equal(t, fiveLines, in.Command[2], "rawInput.command's script")
	}

	assert.Equal(t, "completed", last.Status, "final status")
	out := decodeCodexRawOutput(t, last)
	if assert.Equal(t, fiveLinesOutput, out.Stdout, "rawOutput stdout/exit = %q/%d, want the five lines/0", out.Stdout, out.ExitCode) {
		assert.Equal(t, 0, out.ExitCode, "rawOutput stdout/exit = %q/%d, want the five lines/0", out.Stdout, out.ExitCode)
	}

	if tc.termOutput {
		checkCodexTerminal(t, tc, id, updates)
	} else {
		checkCodexText(t, tc, updates)
	}
}

// checkCodexTerminal: the tool_call creates a terminal, updates append
// data, the last one reports the exit.
func checkCodexTerminal(t *testing.T, tc codexCase, id string, updates []acpclient.ToolUpdate) {
	t.Helper()
	first, last := updates[0], updates[len(updates)-1]
	assert.True(t, terminalContent(first, id), "tool_call content = %+v, want one terminal %s", first.Content, id)
	info, ok := first.Terminal("terminal_info")
	if assert.True(t, ok, "tool_call _meta.terminal_info = %+v (present %v), want terminal_id %s and a cwd", info, ok, id) {
		if assert.Equal(t, id, info.TerminalID, "tool_call _meta.terminal_info = %+v (present %v), want terminal_id %s and a cwd", info, ok, id) {
			assert.NotEmpty(t, info.CWD, "tool_call _meta.terminal_info = %+v (present %v), want terminal_id %s and a cwd", info, ok, id)
		}
	}
	exit, ok := last.Terminal("terminal_exit")
	if assert.True(t, ok, "final _meta.terminal_exit") && assert.Equal(t, id, exit.TerminalID, "final _meta.terminal_exit.terminal_id") &&
		assert.NotNil(t, exit.ExitCode, "final _meta.terminal_exit %+v", exit) {
		assert.Equal(t, 0, *exit.ExitCode, "final _meta.terminal_exit.exit_code")
	}
	for i, u := range updates {
		assert.Empty(t, u.Text(), "update %d has text content %q; with the extension codex sends none", i, u.Text())
	}
	data := acpclient.TerminalData(updates)
	if tc.unified {
		// Unified exec streams only what the PTY prints after its first
		// poll; a fast command prints everything before (quirk).
		assert.True(t, isLineRun(data, fiveLinesOutput), "streamed data = %q, want some lines of the output", data)
		return
	}
	assert.Equal(t, fiveLinesOutput, data, "streamed data")
}

// checkCodexText: no extension, so output comes as fenced text content.
func checkCodexText(t *testing.T, tc codexCase, updates []acpclient.ToolUpdate) {
	t.Helper()
	first, last := updates[0], updates[len(updates)-1]
	if assert.False(t, first.HasContent, "tool_call has content %+v / _meta %v; without the extension it has neither", first.Content, first.Meta) {
		assert.Nil(t, first.Meta, "tool_call has content %+v / _meta %v; without the extension it has neither", first.Content, first.Meta)
	}
	for i, u := range updates {
		assert.False(t, hasTerminalMeta(u), "update %d has terminal _meta %v without the capability", i, u.Meta)
	}
	middle := updates[1 : len(updates)-1]
	switch {
	case tc.version == "0.13":
		// ≤0.13 sends a full snapshot per chunk; the final update has no content.
		assert.False(t, last.HasContent, "0.13 final update has content %+v, want only status and rawOutput", last.Content)
		for i, u := range middle {
			if assert.True(t, u.HasContent, "0.13 update %d = %+v, want a fenced snapshot", i+1, u) {
				assert.True(t, strings.HasPrefix(u.Text(), "```sh\n"), "0.13 update %d = %+v, want a fenced snapshot", i+1, u)
			}
		}
		want := codexFence(fiveLinesOutput)
		if tc.unified {
			// As with the extension: a fast command may stream nothing.
			if len(middle) > 0 {
				assert.True(t, isLineRun(fenceBody(lastText(middle)), fiveLinesOutput), "0.13 last snapshot = %q, want some lines of the output, fenced", lastText(middle))
			}
			return
		}
		if assert.NotEmpty(t, middle, "0.13 snapshots = %d, last %q; want the last to be %q", len(middle), lastText(middle), want) {
			assert.Equal(t, want, middle[len(middle)-1].Text(), "0.13 snapshots = %d, last %q; want the last to be %q", len(middle), lastText(middle), want)
		}
	default:
		// 0.14+ sends one final update with status, fenced content and rawOutput.
		assert.Empty(t, middle, "0.16 sent %d updates between tool_call and the final one, want 0", len(middle))
		if tc.unified {
			// The fence holds only the streamed part; a fast command has no
			// content key at all (quirk).
			if last.HasContent {
				assert.True(t, isLineRun(fenceBody(last.Text()), fiveLinesOutput), "0.16 final content = %q, want some lines of the output, fenced", last.Text())
			}
			return
		}
		got, want := last.Text(), codexFence(fiveLinesOutput)
		assert.Equal(t, want, got, "0.16 final content")
	}
}

func lastText(us []acpclient.ToolUpdate) string {
	if len(us) == 0 {
		return ""
	}
	return us[len(us)-1].Text()
}
