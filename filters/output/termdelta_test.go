package output

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bothClient advertises both forms of the extension.
const bothClient = `{"_meta":{"terminal_output":true,"terminal_output_delta":true}}`

// outDelta is an update streaming data under _meta.terminal_output_delta.
func outDelta(id, data string) string {
	return upd(id, `"_meta":{"terminal_output_delta":{"terminal_id":"`+id+`","data":`+q(data)+`}}`)
}

// claudeExit is claude-agent-acp 0.101's final update for a client with a
// terminal: the status and the exit, no rawOutput.
func claudeExit(id string) string {
	return upd(id, `"status":"completed","content":[{"type":"terminal","terminalId":"`+id+`"}],"_meta":{"terminal_info":{"terminal_id":"`+id+`"},"terminal_exit":{"terminal_id":"`+id+`","exit_code":0,"signal":null}}`)
}

// terminalShows is what a client that renders the extension shows in call
// id's terminal after lines, read as claude-agent-acp defines the keys: a
// client that advertised terminal_output_delta appends those chunks and
// takes terminal_output as a replacement; any other client appends what
// comes under either key. It also returns the keys the client was sent.
func terminalShows(t *testing.T, lines []string, id string, deltaClient bool) (string, map[string]int) {
	t.Helper()
	var term strings.Builder
	keys := map[string]int{}
	for _, l := range lines {
		var msg struct {
			Params struct {
				Update struct {
					ID   string `json:"toolCallId"`
					Meta map[string]struct {
						Data *string `json:"data"`
					} `json:"_meta"`
				} `json:"update"`
			} `json:"params"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &msg), l)
		u := msg.Params.Update
		if u.ID != id {
			continue
		}
		for _, k := range []string{"terminal_output", "terminal_output_delta"} {
			v, ok := u.Meta[k]
			if !ok || v.Data == nil {
				continue
			}
			keys[k]++
			if k == "terminal_output" && deltaClient {
				term.Reset()
			}
			term.WriteString(*v.Data)
		}
	}
	return term.String(), keys
}

// TestTerminalOutputDeltaForms runs every client form (none, terminal_output,
// terminal_output_delta, both) against every agent form: appends under
// terminal_output (codex-acp, claude-agent-acp 0.23), appends under
// terminal_output_delta (TypeScript codex-acp, claude-agent-acp 0.101 for a
// delta client), and deltas followed by a terminal_output replacement
// (claude-agent-acp 0.101's background output). The client ends up showing
// the agent's output, completed from rawOutput, under the keys it reads:
// appends as terminal_output_delta when it advertised that form, else as
// terminal_output; terminal_output as a replacement only for a client that
// reads it so.
func TestTerminalOutputDeltaForms(t *testing.T) {
	type agentForm struct {
		name   string
		lines  []string
		output string // what the terminal shows at the end
	}
	agents := []agentForm{
		{"terminal_output appends", []string{
			termCallMsg("t1"), out("t1", "a\n"), out("t1", "b\n"), codexEnd("t1", "completed", "a\nb\nc\n", 0),
		}, "a\nb\nc\n"},
		{"terminal_output_delta appends", []string{
			termCallMsg("t1"), outDelta("t1", "a\n"), outDelta("t1", "b\n"), codexEnd("t1", "completed", "a\nb\nc\n", 0),
		}, "a\nb\nc\n"},
		{"deltas, then a terminal_output replacement", []string{
			termCallMsg("t1"), outDelta("t1", "Command running in background\n"),
			out("t1", "a\n"), outDelta("t1", "b\n"), claudeExit("t1"),
		}, "a\nb\n"},
		{"deltas, then a replacement that extends them", []string{
			termCallMsg("t1"), outDelta("t1", "a\n"), out("t1", "a\nb\n"), outDelta("t1", "c\n"), claudeExit("t1"),
		}, "a\nb\nc\n"},
	}
	clients := []struct {
		name, caps string
		delta      bool // reads terminal_output_delta (and terminal_output as a replacement)
		plain      bool
	}{
		{"no extension", plainClient, false, true},
		{"terminal_output", zedClient, false, false},
		{"terminal_output_delta", deltaClient, true, false},
		{"both", bothClient, true, false},
	}
	for _, c := range clients {
		for _, a := range agents {
			t.Run(c.name+"/"+a.name, func(t *testing.T) {
				h := newHarness(t, c.caps, codexAgent, &TerminalOutput{})
				h.run(fromAgent(a.lines[0]))
				for _, l := range a.lines[1:] {
					h.run(after(200e6), fromAgent(l))
				}
				lines := h.take()
				assert.Empty(t, h.errs)
				if c.plain {
					sameText(t, shFence(a.output), seen(t, lines)["t1"])
					for _, l := range lines {
						assert.NotContains(t, l, `"terminal_output`, "a plain client gets no extension keys")
					}
					return
				}
				shows, keys := terminalShows(t, lines, "t1", c.delta)
				if a.name == "deltas, then a terminal_output replacement" && !c.delta {
					// A client that only appends cannot be told to
					// forget what it shows: it shows both.
					sameText(t, "Command running in background\n"+a.output, shows)
				} else {
					sameText(t, a.output, shows)
				}
				if !c.delta {
					assert.Zero(t, keys["terminal_output_delta"], "a terminal_output client reads only terminal_output")
				}
				if c.delta && !strings.Contains(a.name, "replacement") {
					assert.Zero(t, keys["terminal_output"], "a delta client is sent appends as terminal_output_delta")
				}
			})
		}
	}
}

// TestTerminalOutputPassesTheClientsOwnFormUnchanged: where the agent
// streams in the form the client reads, the messages are its bytes.
func TestTerminalOutputPassesTheClientsOwnFormUnchanged(t *testing.T) {
	for _, c := range []struct{ caps, line string }{
		{zedClient, out("t1", "a\n")},
		{deltaClient, outDelta("t1", "a\n")},
		{bothClient, outDelta("t1", "a\n")},
	} {
		h := newHarness(t, c.caps, codexAgent, &TerminalOutput{})
		h.agent(termCallMsg("t1"))
		h.take()
		h.agent(c.line)
		require.Len(t, h.out, 1)
		assert.True(t, h.orig[0], "%s to %s: forwarded as it came", c.line, c.caps)
	}
}
