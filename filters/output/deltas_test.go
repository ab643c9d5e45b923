package output

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withTerminal is codex's execute tool_call as deltas gives it a terminal.
func withTerminal(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"seq 3","kind":"execute","status":"in_progress","content":[{"type":"terminal","terminalId":"` + id + `"}],"_meta":{"terminal_info":{"terminal_id":"` + id + `"}}`)
}

// end is codex ≤0.13's final update (status and rawOutput only); ended is
// it with the terminal_exit deltas adds.
func end(id, output string, exit int) string { return codexEndPlain(id, "completed", output, exit) }
func ended(id, output string, exit int) string {
	return strings.TrimSuffix(end(id, output, exit), "}}}") + `,"_meta":{"terminal_exit":{"terminal_id":"` + id + `","exit_code":` + itoa(exit) + `,"signal":null}}}}}`
}

// plainSnap is an unfenced snapshot.
func plainSnap(id, text string) string { return upd(id, `"content":`+textContent(text)) }

func TestDeltasForTerminalClients(t *testing.T) {
	cases := []struct {
		name string
		in   []string
		want []string
	}{{
		name: "each snapshot becomes the new text",
		in:   []string{execCall("t1"), snap("t1", "ab"), snap("t1", "abc"), snap("t1", "abcdef")},
		want: []string{withTerminal("t1"), delta("t1", "ab"), delta("t1", "c"), delta("t1", "def")},
	}, {
		name: "the newline the fence trims arrives with the next line",
		in:   []string{execCall("t1"), snap("t1", "a\n"), snap("t1", "a\nb\n"), snap("t1", "a\nb\n\n\nc\n")},
		want: []string{withTerminal("t1"), delta("t1", "a"), delta("t1", "\nb"), delta("t1", "\n\n\nc")},
	}, {
		name: "the end adds what rawOutput has past the last snapshot, then the exit",
		in:   []string{execCall("t1"), snap("t1", "a\n"), snap("t1", "a\nb\n"), end("t1", "a\nb\n", 0)},
		want: []string{withTerminal("t1"), delta("t1", "a"), delta("t1", "\nb"), delta("t1", "\n"), ended("t1", "a\nb\n", 0)},
	}, {
		name: "output the agent stopped snapshotting is recovered",
		in:   []string{execCall("t1"), snap("t1", "a\n"), end("t1", "a\nb\nc\n", 0)},
		want: []string{withTerminal("t1"), delta("t1", "a"), delta("t1", "\nb\nc\n"), ended("t1", "a\nb\nc\n", 0)},
	}, {
		name: "a failure keeps its exit code",
		in:   []string{execCall("t1"), snap("t1", "oops\n"), codexEndPlain("t1", "failed", "oops\n", 3)},
		want: []string{withTerminal("t1"), delta("t1", "oops"), delta("t1", "\n"),
			strings.TrimSuffix(codexEndPlain("t1", "failed", "oops\n", 3), "}}}") + `,"_meta":{"terminal_exit":{"terminal_id":"t1","exit_code":3,"signal":null}}}}}`},
	}, {
		name: "no output at all: just the exit",
		in:   []string{execCall("t1"), upd("t1", `"status":"completed"`)},
		want: []string{withTerminal("t1"), upd("t1", `"status":"completed","_meta":{"terminal_exit":{"terminal_id":"t1","exit_code":null,"signal":null}}`)},
	}, {
		name: "the same snapshot twice adds nothing",
		in:   []string{execCall("t1"), snap("t1", "a\n"), snap("t1", "a\n"), snap("t1", "a\nb")},
		want: []string{withTerminal("t1"), delta("t1", "a"), delta("t1", "\nb")},
	}, {
		name: "unfenced snapshots",
		in:   []string{execCall("t1"), plainSnap("t1", "a\n"), plainSnap("t1", "a\nb\n")},
		want: []string{withTerminal("t1"), delta("t1", "a\n"), delta("t1", "b\n")},
	}, {
		name: "empty output, then some",
		in:   []string{execCall("t1"), snap("t1", ""), snap("t1", "x")},
		want: []string{withTerminal("t1"), delta("t1", "x")},
	}, {
		// The rest is coalesced as for a client without the extension: the
		// held abXY goes with the end.
		name: "a snapshot that does not extend is a full replacement, and so is the rest",
		in:   []string{execCall("t1"), snap("t1", "abc"), snap("t1", "abX"), snap("t1", "abXY"), end("t1", "abXY", 0)},
		want: []string{withTerminal("t1"), delta("t1", "abc"), snap("t1", "abX"),
			strings.TrimSuffix(end("t1", "abXY", 0), "}}}") + `,"content":` + textContent(shFence("abXY")) + "}}}"},
	}, {
		name: "a change of fence is a full replacement",
		in:   []string{execCall("t1"), snap("t1", "a"), plainSnap("t1", "```sh\na\nb")},
		want: []string{withTerminal("t1"), delta("t1", "a"), plainSnap("t1", "```sh\na\nb")},
	}, {
		name: "content of another shape replaces the terminal",
		in: []string{execCall("t1"), snap("t1", "a"),
			upd("t1", `"content":[{"type":"diff","path":"/x","oldText":null,"newText":"y"}]`), snap("t1", "ab")},
		want: []string{withTerminal("t1"), delta("t1", "a"),
			upd("t1", `"content":[{"type":"diff","path":"/x","oldText":null,"newText":"y"}]`), snap("t1", "ab")},
	}, {
		name: "a snapshot with other fields keeps them",
		in:   []string{execCall("t1"), upd("t1", `"title":"t","content":`+textContent(shFence("a")))},
		want: []string{withTerminal("t1"), upd("t1", `"title":"t","_meta":{"terminal_output":{"terminal_id":"t1","data":"a"}}`)},
	}, {
		name: "only execute calls without content get a terminal",
		in: []string{
			update(`"sessionUpdate":"tool_call","toolCallId":"r1","kind":"read","title":"cat x"`),
			snap("r1", "x"),
			update(`"sessionUpdate":"tool_call","toolCallId":"t2","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"why"}}]`),
			termCallMsg("t3"),
			out("t3", "a"),
		},
		want: []string{
			update(`"sessionUpdate":"tool_call","toolCallId":"r1","kind":"read","title":"cat x"`),
			snap("r1", "x"),
			update(`"sessionUpdate":"tool_call","toolCallId":"t2","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"why"}}]`),
			termCallMsg("t3"),
			out("t3", "a"),
		},
	}, {
		name: "an execute call with empty content gets a terminal",
		in:   []string{update(`"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","content":[]`), snap("t1", "a")},
		want: []string{update(`"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","content":[{"type":"terminal","terminalId":"t1"}],"_meta":{"terminal_info":{"terminal_id":"t1"}}`), delta("t1", "a")},
	}, {
		name: "a surrogate pair split between snapshots stays whole",
		in:   []string{execCall("t1"), upd("t1", `"content":[{"type":"content","content":{"type":"text","text":"a\ud83d"}}]`), upd("t1", `"content":[{"type":"content","content":{"type":"text","text":"a\ud83d\ude00"}}]`)},
		want: []string{withTerminal("t1"), delta("t1", "a"), upd("t1", `"_meta":{"terminal_output":{"terminal_id":"t1","data":"\ud83d\ude00"}}`)},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, zedClient, codexAgent, &Deltas{})
			for _, l := range c.in {
				h.agent(l)
			}
			assert.Equal(t, c.want, h.take())
			assert.Empty(t, h.errs)
		})
	}
}

// TestDeltasDeltaVariant: a client that advertised terminal_output_delta,
// alone or with terminal_output, is sent the deltas under that key, the one
// it appends from.
func TestDeltasDeltaVariant(t *testing.T) {
	for _, caps := range []string{deltaClient, bothClient} {
		h := newHarness(t, caps, codexAgent, &Deltas{})
		h.agent(execCall("t1"))
		h.agent(snap("t1", "ab"))
		got := h.take()
		require.Len(t, got, 2)
		assert.Equal(t, upd("t1", `"_meta":{"terminal_output_delta":{"terminal_id":"t1","data":"ab"}}`), got[1], caps)
	}
}

func TestDeltasCoalescesForPlainClients(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name  string
		steps []step
		want  []string
	}{{
		name: "leading edge, latest wins per interval, the end carries the last snapshot",
		steps: []step{
			fromAgent(execCall("t1")),
			fromAgent(snap("t1", "a\n")),
			after(10 * ms), fromAgent(snap("t1", "a\nb\n")),
			after(10 * ms), fromAgent(snap("t1", "a\nb\nc\n")),
			after(80 * ms),
			fromAgent(snap("t1", "a\nb\nc\nd\n")),
			fromAgent(end("t1", "a\nb\nc\nd\n", 0)),
		},
		want: []string{
			execCall("t1"),
			snap("t1", "a\n"),
			snap("t1", "a\nb\nc\n"),
			upd("t1", `"status":"completed","rawOutput":{"stdout":"a\nb\nc\nd\n","stderr":"","aggregated_output":"a\nb\nc\nd\n","exit_code":0,"formatted_output":"(cut)"},"content":`+textContent(shFence("a\nb\nc\nd\n"))),
		},
	}, {
		name: "an end after everything was shown shows the last snapshot again: agent-shell renders each update's own content",
		steps: []step{
			fromAgent(execCall("t1")), fromAgent(snap("t1", "a\n")), fromAgent(end("t1", "a\n", 0)),
		},
		want: []string{execCall("t1"), snap("t1", "a\n"),
			upd("t1", `"status":"completed","rawOutput":{"stdout":"a\n","stderr":"","aggregated_output":"a\n","exit_code":0,"formatted_output":"(cut)"},"content":`+textContent(shFence("a\n")))},
	}, {
		name: "output past the last snapshot is shown from rawOutput",
		steps: []step{
			fromAgent(execCall("t1")), fromAgent(snap("t1", "a\n")), fromAgent(end("t1", "a\nb\n", 0)),
		},
		want: []string{execCall("t1"), snap("t1", "a\n"),
			upd("t1", `"status":"completed","rawOutput":{"stdout":"a\nb\n","stderr":"","aggregated_output":"a\nb\n","exit_code":0,"formatted_output":"(cut)"},"content":`+textContent(shFence("a\nb\n")))},
	}, {
		name: "any other message sends what is held first",
		steps: []step{
			fromAgent(execCall("t1")), fromAgent(snap("t1", "a")), fromAgent(snap("t1", "ab")), fromAgent(chunk),
			fromAgent(snap("t1", "abc")), fromAgent(promptDone),
		},
		want: []string{execCall("t1"), snap("t1", "a"), snap("t1", "ab"), chunk, snap("t1", "abc"), promptDone},
	}, {
		name: "output that looks like a fence is not taken for one",
		steps: []step{
			fromAgent(execCall("t1")), fromAgent(plainSnap("t1", "```\n\n```")), fromAgent(end("t1", "```\n\n```\nmore\n", 0)),
		},
		want: []string{execCall("t1"), plainSnap("t1", "```\n\n```"),
			upd("t1", `"status":"completed","rawOutput":{"stdout":"`+"```\\n\\n```\\nmore\\n"+`","stderr":"","aggregated_output":"`+"```\\n\\n```\\nmore\\n"+`","exit_code":0,"formatted_output":"(cut)"},"content":`+textContent("```\n\n```\nmore\n"))},
	}, {
		name: "a snapshot that does not extend is still latest-wins",
		steps: []step{
			fromAgent(execCall("t1")), fromAgent(snap("t1", "abc")), fromAgent(snap("t1", "xy")), after(100 * ms),
		},
		want: []string{execCall("t1"), snap("t1", "abc"), snap("t1", "xy")},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, plainClient, codexAgent, &Deltas{})
			h.run(c.steps...)
			assert.Equal(t, c.want, h.take())
			assert.Empty(t, h.errs)
		})
	}
}

// With NoCoalescing (--coalesce-interval 0) a plain client gets every
// snapshot as it comes, where the default interval merges them.
func TestDeltasWithNoCoalescingSendsEachSnapshot(t *testing.T) {
	steps := []step{fromAgent(execCall("t1")), fromAgent(snap("t1", "a\n")), after(time.Millisecond), fromAgent(snap("t1", "a\nb\n")), after(time.Millisecond), fromAgent(snap("t1", "a\nb\nc\n"))}
	for _, c := range []struct {
		interval time.Duration
		want     []string
	}{
		{NoCoalescing, []string{execCall("t1"), snap("t1", "a\n"), snap("t1", "a\nb\n"), snap("t1", "a\nb\nc\n")}},
		{0, []string{execCall("t1"), snap("t1", "a\n")}},
	} {
		h := newHarness(t, plainClient, codexAgent, &Deltas{Interval: c.interval})
		h.run(steps...)
		assert.Equal(t, c.want, h.take(), "interval %v", c.interval)
		assert.Empty(t, h.errs)
	}
}

// TestDeltasSnapshotStream replays an O(n²) stream like codex-acp 0.13's,
// at a seventh of the size of the 35,001-line command in 1,745 snapshots
// (BenchmarkSnapshots has that one).
func TestDeltasSnapshotStream(t *testing.T) {
	output := numberedLines(5001)
	cuts := snapshotCuts(output, 250)
	for _, c := range []struct {
		name   string
		client string
		limit  float64 // bytes to the client / output bytes, besides envelopes
	}{
		{"terminal client", zedClient, 1.2},
		{"plain client", plainClient, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.client, codexAgent, &Deltas{}, &TerminalOutput{})
			h.agent(execCall("t1"))
			in, sent := 0, 0
			for _, cut := range cuts {
				s := snap("t1", output[:cut])
				in += len(s)
				h.agent(s)
				h.advance(500 * time.Microsecond)
			}
			h.agent(end("t1", output, 0))
			lines := h.take()
			for _, l := range lines[1 : len(lines)-1] {
				sent += len(l)
			}
			t.Logf("%d snapshots, %d bytes in; %d updates, %d bytes out (%.2f× the output)",
				len(cuts), in, len(lines)-2, sent, float64(sent)/float64(len(output)))
			assert.LessOrEqual(t, float64(sent), c.limit*float64(len(output))+float64(len(lines))*envelope)
			view := seen(t, lines)["t1"]
			if c.client == zedClient {
				sameText(t, output, view)
			} else {
				sameText(t, shFence(output), view)
			}
		})
	}
}

// envelope is a generous size for the JSON around one update's output.
const envelope = 250

// snapshotCuts returns n growing prefix lengths of output, at line ends,
// the last one all of it.
func snapshotCuts(output string, n int) []int {
	var cuts []int
	step := len(output) / n
	for i := step; i < len(output); i += step {
		j := strings.IndexByte(output[i:], '\n')
		i += j + 1
		cuts = append(cuts, i)
	}
	if len(cuts) == 0 || cuts[len(cuts)-1] != len(output) {
		cuts = append(cuts, len(output))
	}
	return cuts
}

// FuzzDeltas feeds snapshot sequences: growing prefixes of output (cut by
// cuts), fenced like codex or not, sometimes with one snapshot garbled, and
// an end with or without rawOutput. A client with the extension must end
// up showing the output exactly (the deltas concatenated rebuild the last
// snapshot, completed from rawOutput), or, after a garbled snapshot, the
// last snapshot as the agent sent it; a client without it the last
// snapshot.
func FuzzDeltas(f *testing.F) {
	for _, s := range []struct {
		output string
		cuts   []byte
		flags  uint8
	}{
		{"ab" + "c" + "def", []byte{2, 1, 3}, 0},
		{"a\nb\n\n\nc\n", []byte{2, 2, 4}, 1},
		{"a\nb\n", []byte{2, 2}, 5},
		{"abcXY", []byte{3, 2}, 8},
		{"", nil, 1},
		{"x\r\n\ty\u00e9\U0001F600\n", []byte{1, 3, 1, 4}, 7},
		{"```sh\nfoo\n```", []byte{4, 4, 5}, 2},
	} {
		f.Add(s.output, s.cuts, s.flags)
	}
	f.Fuzz(func(t *testing.T, output string, cuts []byte, flags uint8) {
		if !utf8.ValidString(output) || len(cuts) > 300 {
			return
		}
		fenced, plain, withRaw, garble := flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
		text := func(o string) string {
			if fenced {
				return shFence(o)
			}
			return o
		}
		var snaps []string // the texts
		pos := 0
		for _, c := range cuts {
			pos += int(c % 64)
			for pos < len(output) && !utf8.RuneStart(output[pos]) {
				pos++
			}
			if pos >= len(output) {
				break
			}
			snaps = append(snaps, text(output[:pos]))
		}
		snaps = append(snaps, text(output))
		garbled := false
		if garble && len(snaps) > 2 {
			snaps[1] = snaps[1] + "~garbled~"
			garbled = true
		}
		client := zedClient
		if plain {
			client = plainClient
		}
		h := newHarness(t, client, codexAgent, &Deltas{})
		h.agent(execCall("t1"))
		for i, s := range snaps {
			h.agent(plainSnap("t1", s))
			if len(cuts) > 0 {
				h.advance(time.Duration(cuts[i%len(cuts)]) * time.Millisecond)
			}
		}
		if withRaw {
			h.agent(end("t1", output, 0))
		} else {
			h.agent(upd("t1", `"status":"completed"`))
		}
		lines := h.take()
		require.Empty(t, h.errs, "filter failed")
		last := snaps[len(snaps)-1]
		view := seen(t, lines)["t1"]
		if plain {
			sameText(t, last, view)
			return
		}
		want := output
		if !withRaw && fenced {
			want = strings.TrimRight(output, "\n")
		}
		converted := !garbled && (fenced || !strings.HasPrefix(output, "```"))
		if converted {
			sameText(t, want, view)
			var data strings.Builder
			for _, l := range lines {
				var m struct {
					Params struct {
						Update struct {
							Meta struct {
								Out struct{ Data string } `json:"terminal_output"`
							} `json:"_meta"`
						} `json:"update"`
					} `json:"params"`
				}
				_ = json.Unmarshal([]byte(l), &m)
				data.WriteString(m.Params.Update.Meta.Out.Data)
			}
			sameText(t, want, data.String())
		} else if _, body, _ := splitFence([]byte(last), "\n"); view != last && view != string(body) {
			// Unfenced output that looks fenced may be read as a fence.
			sameText(t, want, view)
		}
	})
}

// A snapshot a plain client is sent at once, as it came (the leading
// edge, or no coalescing), is the agent's line passing unchanged, not a
// line the filter wrote: observers count it passed, not changed.
func TestDeltasASnapshotSentAsItCamePassesUnchanged(t *testing.T) {
	for _, interval := range []time.Duration{0, NoCoalescing} {
		h := newHarness(t, plainClient, codexAgent, &Deltas{Interval: interval})
		h.run(fromAgent(execCall("t1")), fromAgent(snap("t1", "a\n")))
		require.Equal(t, []string{execCall("t1"), snap("t1", "a\n")}, h.out)
		assert.Equal(t, []bool{true, true}, h.orig, "interval %v", interval)
	}
}
