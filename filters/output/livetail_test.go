package output

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tailHead is the first line of a live tail.
var tailHead = regexp.MustCompile(`^… ([0-9,]+) earlier lines not shown \(live tail\) …\n`)

// TestLiveTailForPlainClients streams a long output to a client without the
// extension, as terminal_output deltas (terminal-output translates them)
// and as accumulated snapshots (deltas coalesces them): while the command
// runs every update shows at most the budget, as the last lines after a
// line counting the earlier ones; the update that ends the call shows all
// of it.
func TestLiveTailForPlainClients(t *testing.T) {
	const budget = 4 << 10
	output := numberedLines(5001) // 48 KB
	lineStart := map[int]int{}    // line number → byte offset
	for i, off := 0, 0; off < len(output); i++ {
		lineStart[i] = off
		off += strings.IndexByte(output[off:], '\n') + 1
	}
	type run struct {
		name  string
		h     *harness
		feed  func(h *harness, from, to int) // output[:to] is out, output[:from] was
		final string
	}
	runs := []run{
		{
			name:  "terminal-output, deltas from the agent",
			h:     newHarness(t, plainClient, codexAgent, &TerminalOutput{LiveTailBytes: budget}),
			feed:  func(h *harness, from, to int) { h.agent(out("t1", output[from:to])) },
			final: codexEnd("t1", "completed", output, 0),
		},
		{
			name:  "deltas, snapshots from the agent",
			h:     newHarness(t, plainClient, codexAgent, &Deltas{LiveTailBytes: budget}),
			feed:  func(h *harness, _, to int) { h.agent(snap("t1", output[:to])) },
			final: codexEndPlain("t1", "completed", "", 0), // rawOutput holds nothing more
		},
	}
	runs[0].h.agent(termCallMsg("t1"))
	runs[1].h.agent(execCall("t1"))
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			h := r.h
			h.take()
			var live []string
			from := 0
			for _, cut := range snapshotCuts(output, 500) {
				r.feed(h, from, cut)
				from = cut
				h.advance(20 * time.Millisecond)
				live = append(live, h.take()...)
			}
			require.Greater(t, len(live), 5, "the output is shown while it runs")
			tails := 0
			for _, l := range live {
				text := strings.TrimSuffix(strings.TrimPrefix(seen(t, []string{l})["t1"], "```sh\n"), "\n```\n")
				m := tailHead.FindStringSubmatch(text)
				if m == nil {
					assert.LessOrEqual(t, len(text), budget, "an update not marked as a tail shows all of a short output")
					assert.True(t, strings.HasPrefix(output, text), "and shows it from its start")
					continue
				}
				tails++
				shown := text[len(m[0]):]
				assert.LessOrEqual(t, len(shown), budget)
				earlier, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
				require.NoError(t, err)
				assert.True(t, strings.HasPrefix(output[lineStart[earlier]:], shown),
					"the tail starts with the line after the %d it says are not shown: %.40q", earlier, shown)
				assert.Less(t, len(l), budget+envelope+len(m[0]), "the update is bounded by the budget")
			}
			assert.Greater(t, tails, 3, "a long output is shown as a tail")
			h.agent(r.final)
			final := h.take()
			require.NotEmpty(t, final)
			sameText(t, shFence(output), seen(t, append(live, final...))["t1"])
		})
	}
}

// TestLiveTailPastMaxBytesShowsTheLatestLines: past --max-output-bytes
// the proxy keeps the start of the output for the end, and the live view
// still shows the latest lines.
func TestLiveTailPastMaxBytesShowsTheLatestLines(t *testing.T) {
	output := numberedLines(3000) // 28 KB
	h := newHarness(t, plainClient, codexAgent, &TerminalOutput{MaxBytes: 1000, LiveTailBytes: 2000})
	h.agent(termCallMsg("t1"))
	for i := 0; i < len(output); i += 100 {
		h.agent(out("t1", output[i:min(i+100, len(output))]))
		h.advance(time.Second)
	}
	live := seen(t, h.take())["t1"]
	m := tailHead.FindStringSubmatch(strings.TrimPrefix(live, "```sh\n"))
	require.NotNil(t, m, "a tail: %.80q", live)
	assert.Equal(t, "2,8", m[1][:3], "about 2,8xx lines before the tail")
	assert.True(t, strings.HasSuffix(live, "line 2999\n```\n"), "the tail ends with the latest line")
	h.agent(codexEnd("t1", "completed", output, 0))
	sameText(t, shFence(output), seen(t, h.take())["t1"])
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567"} {
		assert.Equal(t, want, thousands(n))
	}
}
