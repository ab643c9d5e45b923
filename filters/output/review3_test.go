package output

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// The third review's output classes (issue 25): each test fails on the
// filters before their fix.

// A chunk the agent streams after a call's end, holding output the client
// was already shown from the end's rawOutput, is not shown again: codex-acp
// reports the whole output in rawOutput while its last chunk is still on the
// way, and the proxy completes the stream from rawOutput.
func TestALateChunkAlreadyInRawOutputIsNotShownTwice(t *testing.T) {
	for _, client := range []struct{ name, caps string }{{"plain", plainClient}, {"zed-like", zedClient}, {"delta", deltaClient}} {
		t.Run(client.name, func(t *testing.T) {
			h := newHarness(t, client.caps, codexAgent, &TerminalOutput{})
			h.run(fromAgent(termCallMsg("t1")), fromAgent(out("t1", "line 4\n")),
				fromAgent(codexEnd("t1", "completed", "line 4\nline 5\n", 0)),
				fromAgent(out("t1", "line 5\n")), after(time.Second))
			assert.Equal(t, "line 4\nline 5\n", outputOf(client.caps, seen(t, h.take())["t1"]))

			// A late chunk with more than rawOutput had shows only what is new.
			h.run(fromAgent(termCallMsg("t2")), fromAgent(out("t2", "a\n")),
				fromAgent(codexEnd("t2", "completed", "a\nb\n", 0)),
				fromAgent(out("t2", "b\nc\n")), after(time.Second))
			assert.Equal(t, "a\nb\nc\n", outputOf(client.caps, seen(t, h.take())["t2"]))
		})
	}
}

// The final update of a call the filter no longer remembers (evicted while
// it streamed, then forgotten among the ended calls) does not send its
// rawOutput again to a client with the extension, which shows what was
// streamed already: the filter cannot tell which part that is.
func TestAForgottenCallsEndDoesNotRepeatItsOutput(t *testing.T) {
	for _, client := range []struct{ name, caps string }{{"zed-like", zedClient}, {"delta", deltaClient}} {
		t.Run(client.name, func(t *testing.T) {
			h := newHarness(t, client.caps, codexAgent, &TerminalOutput{MaxBytes: 1000})
			h.run(fromAgent(termCallMsg("t0")), fromAgent(out("t0", "a\nb\n")))
			// 128 more calls streaming at once: t0 is retired.
			for i := 1; i <= 128; i++ {
				id := fmt.Sprintf("s%d", i)
				h.run(fromAgent(termCallMsg(id)), fromAgent(out(id, "x\n")))
			}
			// 300 calls that end: t0 is forgotten among the ended calls.
			for i := 1; i <= 300; i++ {
				id := fmt.Sprintf("t%d", i)
				h.run(fromAgent(termCallMsg(id)), fromAgent(out(id, "x\n")), fromAgent(codexEnd(id, "completed", "x\n", 0)))
			}
			h.run(fromAgent(codexEnd("t0", "completed", "a\nb\n", 0)))
			assert.Equal(t, "a\nb\n", seen(t, h.take())["t0"])
		})
	}
}

// outputOf is the output a client of caps shows in view: without codex's
// fence for a client without the extension.
func outputOf(caps, view string) string {
	if caps == plainClient {
		return unfenced(view)
	}
	return view
}

// Output an agent streams for a call after its turn ended is shown whole to
// a client without the extension once it goes quiet, not left as a live tail
// until the next turn ends: no final update will come to complete it.
func TestOutputAfterTheTurnEndedEndsWhole(t *testing.T) {
	h := newHarness(t, plainClient, codexAgent, &TerminalOutput{LiveTailBytes: 256})
	h.client(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	var all string
	h.run(fromAgent(termCallMsg("t1")))
	for i := 0; i < 100; i++ {
		line := fmt.Sprintf("line %d\n", i)
		all += line
		h.run(fromAgent(out("t1", line)))
	}
	h.run(fromAgent(promptDone), after(time.Second)) // the turn ends with no final update
	for i := 100; i < 200; i++ {
		line := fmt.Sprintf("line %d\n", i)
		all += line
		h.run(fromAgent(out("t1", line)), after(time.Millisecond))
	}
	h.run(after(5 * time.Second)) // the agent sits idle
	assert.Equal(t, all, unfenced(seen(t, h.take())["t1"]), "whole, not a live tail")
}

// An agent that numbers its calls per turn reuses an id after a turn that
// left its call without a final update: the new call shows its own output,
// not the previous command's above it.
func TestAReusedIDAfterAnUnfinishedTurnShowsOnlyTheNewOutput(t *testing.T) {
	prompt := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`, id)
	}
	done := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)
	}
	for _, client := range []struct{ name, caps string }{{"plain", plainClient}, {"zed-like", zedClient}, {"delta", deltaClient}} {
		for _, snapshots := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/snapshots=%v", client.name, snapshots), func(t *testing.T) {
				h := newHarness(t, client.caps, codexAgent, &Deltas{}, &TerminalOutput{})
				call, output, end := termCallMsg, out, func(id, o string) string { return codexEnd(id, "completed", o, 0) }
				if snapshots {
					call, output, end = execCall, snap, func(id, o string) string { return codexEndPlain(id, "completed", o, 0) }
				}
				h.client(prompt(11))
				h.run(fromAgent(call("c1")), fromAgent(output("c1", "old 1\n")), fromAgent(done(11)), after(time.Second))
				h.client(prompt(12))
				h.run(fromAgent(call("c1")), fromAgent(output("c1", "new 1\n")), fromAgent(end("c1", "new 1\n")), fromAgent(done(12)), after(time.Second))
				lines := h.take()
				assert.Equal(t, "new 1\n", outputOf(client.caps, seen(t, lines)["c1"]))
				if snapshots && client.caps != plainClient {
					// The terminals the proxy gives the two calls differ: a client
					// that keeps what a terminal id showed shows only the new one.
					var tids []string
					for _, l := range lines {
						if strings.Contains(l, `"sessionUpdate":"tool_call",`) {
							content, _ := rawjson.Get([]byte(l), "params", "update", "content")
							tids = append(tids, string(content))
						}
					}
					if assert.Len(t, tids, 2) {
						assert.NotEqual(t, tids[0], tids[1], "the terminal of a call with a reused id")
					}
				}
			})
		}
	}
}

// Saved-output expansion shows a file only for the agent that saved it, and
// only with the agent's whole preview of that file as proof; never from text
// a command printed: a note or block a command prints names any file under
// the Claude config directory (another project's saved output included).
func TestExpansionNeedsTheAgentsOwnWholePreview(t *testing.T) {
	full := numberedLines(4000)
	config, path := claudeDirs(t, full)
	preview := full[:strings.LastIndexByte(full[:2000], '\n')]
	cases := []struct {
		name, agent, update string
		expanded            bool
	}{
		// full's 30,000th byte is a newline, which the CLI trims.
		{"claude's own note, after the first 30,000 bytes", claude101Agent,
			claude101Data("t1", "terminal_output", truncatedOutput(full[:29999], path, len(full))), true},
		{"a note after one byte of the file", claude101Agent,
			claude101Data("t1", "terminal_output", truncatedOutput(full[:1], path, len(full))), false},
		{"a note after 29,998 bytes", claude101Agent,
			claude101Data("t1", "terminal_output", truncatedOutput(full[:29998], path, len(full))), false},
		{"a note after 30,000 bytes with their newline", claude101Agent,
			claude101Data("t1", "terminal_output", truncatedOutput(full[:30000], path, len(full))), false},
		{"claude's note in codex's output", codexAgent,
			out("t1", truncatedOutput(full[:30000], path, len(full))), false},
		{"claude's own block", claudeAgent,
			upd("t1", `"status":"completed","content":`+textContent("```console\n"+persistedBlock(path, preview)+"\n```")), true},
		{"a block with an empty preview", claudeAgent,
			upd("t1", `"status":"completed","content":`+textContent("```console\n"+persistedBlock(path, "")+"\n```")), false},
		{"a block with a short preview", claudeAgent,
			upd("t1", `"status":"completed","content":`+textContent("```console\n"+persistedBlock(path, "line 0")+"\n```")), false},
		{"a block inside a command's output", claudeAgent,
			upd("t1", `"status":"completed","content":`+textContent("```console\nmake says:\n"+persistedBlock(path, preview)+"\n```")), false},
		{"claude's block in codex's output", codexAgent,
			upd("t1", `"status":"completed","content":`+textContent("```sh\n"+persistedBlock(path, preview)+"\n```")), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, zedClient, c.agent, &PersistedOutput{Expand: true, ConfigDirs: []string{config}})
			h.agent(c.update)
			got := strings.Join(h.take(), "\n")
			assert.Equal(t, c.expanded, strings.Contains(got, "line 3999"), "the saved file shown")
		})
	}
}

// More calls streaming at once than a filter follows (128) must not make
// every update re-send a whole output: the bytes a client without the
// extension is sent stay linear in the output, whatever the number of
// calls: at most 8 times the output (measured: 7.1 at 40 chunks, 6.0 at
// 100, 5.5 at 200; 24 at 40 chunks before, growing with the chunks).
func TestManyStreamingCallsKeepTheTrafficLinear(t *testing.T) {
	const calls, chunks = 129, 40
	chunk := strings.Repeat("x", 1023) + "\n"
	h := newHarness(t, plainClient, codexAgent, &TerminalOutput{})
	in := 0
	for i := 0; i < calls; i++ {
		h.run(fromAgent(termCallMsg(fmt.Sprintf("t%d", i))))
	}
	for j := 0; j < chunks; j++ {
		for i := 0; i < calls; i++ {
			h.run(fromAgent(out(fmt.Sprintf("t%d", i), chunk)), after(time.Millisecond))
			in += len(chunk)
		}
	}
	for i := 0; i < calls; i++ {
		id := fmt.Sprintf("t%d", i)
		h.run(fromAgent(codexEnd(id, "completed", strings.Repeat(chunk, chunks), 0)))
	}
	h.run(after(time.Second))
	sent := 0
	lines := h.take()
	for _, l := range lines {
		sent += len(l)
	}
	t.Logf("%d calls × %d chunks: %d bytes of output, %d bytes sent in %d lines", calls, chunks, in, sent, len(lines))
	assert.LessOrEqual(t, sent, 8*in, "bytes sent")
	shown := seen(t, lines)
	for i := 0; i < calls; i++ {
		assert.Equal(t, strings.Repeat(chunk, chunks), unfenced(shown[fmt.Sprintf("t%d", i)]))
		if t.Failed() {
			break
		}
	}
}
