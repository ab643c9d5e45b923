package output

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
	"github.com/stretchr/testify/require"
)

// opencodeTrace is a real `acp-proxy --record` trace of opencode 1.18.33
// running `for i in $(seq 1 2000); do echo line $i; done` (18,893 bytes of
// output) for a client without the extension: the tool_call, 9 updates
// (6 of them full-text snapshots), and a final update whose content is cut
// to the last 2,000 lines and whose rawOutput holds the output twice more.
const opencodeTrace = "testdata/opencode-2000.jsonl"

// traceLine is an agent→client line of a trace and when it came.
type traceLine struct {
	at   time.Duration
	line string
}

func readAgentLines(tb testing.TB, path string) []traceLine {
	tb.Helper()
	f, err := os.Open(path)
	require.NoError(tb, err)
	defer f.Close()
	tr := proxy.NewTraceReader(f)
	var lines []traceLine
	for {
		rec, err := tr.Next()
		if err == io.EOF {
			return lines
		}
		require.NoError(tb, err)
		// Responses answer the recorded client's requests, not the
		// harness's.
		if rec.Dir == acp.AgentToClient && rec.HasLine && !filters.NewMessage(rec.Dir, rec.Line, time.Time{}, nil).IsResponse() {
			lines = append(lines, traceLine{rec.T, string(rec.Line)})
		}
	}
}

// replayAgent runs lines through h at their times and returns what the
// client received: bytes (with newlines) and lines.
func replayAgent(h *harness, lines []traceLine) (sent int, out []string) {
	var last time.Duration
	for _, l := range lines {
		h.advance(l.at - last)
		last = l.at
		h.agent(l.line)
	}
	h.advance(time.Second)
	h.drain()
	out = h.take()
	for _, l := range out {
		sent += len(l) + 1
	}
	return sent, out
}

// BenchmarkOpencodeSnapshots replays the opencode trace through the output
// filters, for a client with the extension and one without, and reports the
// bytes the client receives against the same trace relayed unchanged
// (out/none), those of the final update (which carries the output three
// times), and the lines the client shows at the end.
func BenchmarkOpencodeSnapshots(b *testing.B) {
	lines := readAgentLines(b, opencodeTrace)
	chains := []struct {
		name string
		fs   func() []filters.Filter
	}{
		{"deltas", func() []filters.Filter { return []filters.Filter{&Deltas{}} }},
		{"all+expand", func() []filters.Filter {
			return []filters.Filter{&Deltas{}, &TerminalOutput{}, &PersistedOutput{Expand: true}}
		}},
	}
	for _, client := range []struct{ name, caps string }{{"plain", plainClient}, {"zed", zedClient}} {
		none, _ := replayAgent(newHarness(b, client.caps, opencodeAgent), lines)
		for _, ch := range chains {
			b.Run(client.name+"/"+ch.name, func(b *testing.B) {
				var sent int
				var out []string
				for b.Loop() {
					sent, out = replayAgent(newHarness(b, client.caps, opencodeAgent, ch.fs()...), lines)
				}
				shown, final := 0, 0
				for _, text := range seen(b, out) {
					shown = max(shown, strings.Count(text, "line "))
				}
				for _, l := range out {
					if strings.Contains(l, `"status":"completed"`) {
						final += len(l) + 1
					}
				}
				b.ReportMetric(float64(none), "B_none/op")
				b.ReportMetric(float64(sent), "B_out/op")
				b.ReportMetric(float64(final), "B_final/op")
				b.ReportMetric(float64(sent)/float64(none), "out/none")
				b.ReportMetric(float64(shown), "lines_shown")
			})
		}
	}
}
