package output

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/stretchr/testify/require"
)

// BenchmarkOutputFiltersUnchanged is the cost of each output filter on
// messages it does not change, against a chain with no filter.
func BenchmarkOutputFiltersUnchanged(b *testing.B) {
	msgs := []struct{ name, line string }{
		{"message_chunk", chunk},
		{"edit_diff", update(`"sessionUpdate":"tool_call","toolCallId":"e1","kind":"edit","title":"Edit /a","content":[{"type":"diff","path":"/a","oldText":"` + strings.Repeat("old ", 100) + `","newText":"` + strings.Repeat("new ", 100) + `"}],"locations":[{"path":"/a"}]`)},
		{"message_64KiB", strings.Replace(chunk, "hi <b>&", strings.Repeat("x", 64<<10), 1)},
	}
	chains := []struct {
		name string
		fs   func() []filters.Filter
	}{
		{"none", func() []filters.Filter { return nil }},
		{"terminal-output", func() []filters.Filter { return []filters.Filter{&TerminalOutput{}} }},
		{"deltas", func() []filters.Filter { return []filters.Filter{&Deltas{}} }},
		{"persisted-output", func() []filters.Filter { return []filters.Filter{&PersistedOutput{Expand: true}} }},
		{"all", func() []filters.Filter { return []filters.Filter{&Deltas{}, &TerminalOutput{}, &PersistedOutput{}} }},
	}
	for _, msg := range msgs {
		for _, ch := range chains {
			for _, client := range []struct{ name, caps string }{{"plain", plainClient}, {"zed", zedClient}} {
				if ch.name == "none" && client.name == "zed" {
					continue
				}
				b.Run(msg.name+"/"+ch.name+"/"+client.name, func(b *testing.B) {
					h := newHarness(b, client.caps, codexAgent, ch.fs()...)
					raw := []byte(msg.line)
					sink := func(filters.Line) error { return nil }
					b.SetBytes(int64(len(raw)))
					b.ReportAllocs()
					for b.Loop() {
						m := filters.NewMessage(acp.AgentToClient, raw, t0, nil)
						if err := h.chain.Process(m, sink); err != nil { // require's Helper call would be timed
							require.NoError(b, err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkSnapshots runs codex-acp 0.13's snapshot stream for the
// 35,001-line command (1,745 snapshots, 373,901 bytes of output) through
// deltas and terminal-output, 0.5 ms apart, and reports the bytes out
// while the command runs and at its end (the agent's rawOutput there holds
// the output twice).
func BenchmarkSnapshots(b *testing.B) {
	output := numberedLines(35001)
	cuts := snapshotCuts(output, 1745)
	for _, client := range []struct{ name, caps string }{{"zed", zedClient}, {"plain", plainClient}} {
		b.Run(client.name, func(b *testing.B) {
			var in, live, msgs, end, data, largest int
			for b.Loop() {
				h := newHarness(b, client.caps, codexAgent, &Deltas{}, &TerminalOutput{})
				h.agent(execCall("t1"))
				in, live, msgs, end, data, largest = 0, 0, 0, 0, 0, 0
				for _, cut := range cuts {
					b.StopTimer()
					s := snap("t1", output[:cut])
					b.StartTimer()
					in += len(s)
					h.agent(s)
					h.advance(500 * time.Microsecond)
					for _, l := range h.take() {
						live += len(l)
						largest = max(largest, len(l))
						msgs++
						if raw, ok := rawjson.Get([]byte(l), "params", "update", "_meta", "terminal_output", "data"); ok {
							data += len(raw) - 2
						}
					}
				}
				h.agent(codexEndPlain("t1", "completed", output, 0))
				for _, l := range h.take() {
					end += len(l)
					msgs++
					if raw, ok := rawjson.Get([]byte(l), "params", "update", "_meta", "terminal_output", "data"); ok {
						data += len(raw) - 2
					}
				}
			}
			b.ReportMetric(float64(in), "B_in/op")
			b.ReportMetric(float64(live), "B_out_live/op")
			b.ReportMetric(float64(end), "B_out_end/op")
			b.ReportMetric(float64(msgs), "msgs_out/op")
			b.ReportMetric(float64(largest), "B_largest_live")
			b.ReportMetric(float64(live)/float64(len(output)), "live/output")
			if data > 0 {
				b.ReportMetric(float64(data)/float64(len(output)), "data/output")
			}
		})
	}
}

// BenchmarkTranslate streams the 35,001-line output as 10,000 deltas in a
// second (like codex-acp 0.16 with the extension) through terminal-output
// for a client without it.
func BenchmarkTranslate(b *testing.B) {
	output := numberedLines(35001)
	var deltas []string
	size := len(output) / 10000
	for i := 0; i < len(output); i += size {
		deltas = append(deltas, out("t1", output[i:min(i+size, len(output))]))
	}
	final := codexEnd("t1", "completed", output, 0)
	var in, sent, msgs, largest int
	for b.Loop() {
		h := newHarness(b, plainClient, codexAgent, &Deltas{}, &TerminalOutput{}, &PersistedOutput{})
		h.agent(termCallMsg("t1"))
		in, sent, msgs, largest = 0, 0, 0, 0
		for _, d := range deltas {
			in += len(d)
			h.agent(d)
			h.advance(100 * time.Microsecond)
		}
		for _, l := range h.take() {
			sent += len(l)
			largest = max(largest, len(l))
			msgs++
		}
		in += len(final)
		h.agent(final)
		for _, l := range h.take() {
			sent += len(l)
			msgs++
		}
	}
	b.ReportMetric(float64(in), "B_in/op")
	b.ReportMetric(float64(sent), "B_out/op")
	b.ReportMetric(float64(largest), "B_largest_live")
	b.ReportMetric(float64(msgs), "msgs_out/op")
}

// BenchmarkManyStreamingCalls streams calls × chunks of 1 KB round robin
// to a client without the extension through --terminal-output, the calls
// ending once all their output is out: 128 calls (all followed) as the
// baseline, and 129 and 256 (more than a filter follows). It reports the
// bytes sent per byte of output, which stays flat past 128 calls.
func BenchmarkManyStreamingCalls(b *testing.B) {
	chunk := strings.Repeat("x", 1023) + "\n"
	const chunks = 40
	for _, calls := range []int{128, 129, 256} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			var in, sent int
			for b.Loop() {
				h := newHarness(b, plainClient, codexAgent, &TerminalOutput{})
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
					h.run(fromAgent(codexEnd(fmt.Sprintf("t%d", i), "completed", strings.Repeat(chunk, chunks), 0)))
				}
				for _, l := range h.take() {
					sent += len(l)
				}
			}
			b.ReportMetric(float64(sent)/float64(in), "sent/output")
		})
	}
}
