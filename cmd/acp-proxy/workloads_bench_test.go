package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/telemetry"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// The speed goals of the proxy are ratios to a bare byte-copying relay with
// 64 KiB buffers (pipebench.Bare), measured in the same run: the proxy
// untouched (no flag), with the output filters and --shell-to-patch, with
// each of those flags alone, with --show-changes alone and with
// OpenTelemetry export on, on the standard workloads below. Each benchmark
// reports x-bare (time per op ÷ the bare relay's of the same round) and
// x-bare-cpu (the same for the process's CPU time); the bare relay runs
// first in each round. Run with -count 5 and take the median.

// proxyConfig is one way the proxy is run.
type proxyConfig struct {
	name   string
	cfg    filterset.Config
	export bool // OpenTelemetry export on, to a receiver in the process
}

var proxyConfigs = []proxyConfig{
	{name: "untouched"},
	{name: "filters", cfg: filterset.Config{TerminalOutput: true, Deltas: true, ShellToPatch: true}},
	{name: "terminal-output", cfg: filterset.Config{TerminalOutput: true}},
	{name: "deltas", cfg: filterset.Config{Deltas: true}},
	{name: "shell-to-patch", cfg: filterset.Config{ShellToPatch: true}},
	{name: "show-changes", cfg: filterset.Config{ShowChanges: true}},
	{name: "export", export: true},
}

// workload is what a fake agent streams: head once, then op after op.
type workload struct {
	name string
	head string
	op   func(w *bufio.Writer, i int) int
	size int // bytes per op, for MB/s
	// shrinks: a filter sends less than it reads (deltas of snapshots);
	// the check is then that something came out.
	shrinks bool
}

// BenchmarkWorkloads runs each workload through each configuration of
// proxyConfigs, after the bare relay. One op is one message, or for the
// growing snapshots one command: its tool_call, 1,000 snapshots of its
// output growing by 200 B, its end. The counts are -benchtime
// 200000x, 20000x, 200x, 20000x and 1x.
func BenchmarkWorkloads(b *testing.B) {
	receiver := otlptest.New(b)
	for _, wl := range workloads() {
		b.Run(wl.name, func(b *testing.B) {
			var floor pipebench.Floor
			b.Run("bare", func(b *testing.B) {
				b.SetBytes(int64(wl.size))
				floor.Set(wl.run(b, pipebench.Bare))
			})
			for _, pc := range proxyConfigs {
				b.Run(pc.name, func(b *testing.B) {
					b.SetBytes(int64(wl.size))
					relay, done := pc.relay(b, receiver.URL)
					floor.Report(b, wl.run(b, func(dst io.Writer, src io.Reader) error {
						conn := relay.Open(io.Discard, dst)
						if err := conn.Pump(acp.ClientToAgent, strings.NewReader(clientHead(b))); err != nil {
							return err
						}
						return conn.Pump(acp.AgentToClient, src)
					}))
					done()
				})
			}
		})
	}
}

// run runs wl through relay, and checks that nothing was lost.
func (wl workload) run(b *testing.B, relay func(dst io.Writer, src io.Reader) error) pipebench.Result {
	r := pipebench.RunOps(b, []byte(wl.head), wl.op, relay)
	if wl.shrinks {
		require.Positive(b, r.Out)
	} else {
		require.GreaterOrEqual(b, r.Out, r.In, "relayed %d bytes, want at least %d", r.Out, r.In)
	}
	return r
}

// relay builds the relay as the CLI does for pc; done stops what it
// started.
func (pc proxyConfig) relay(b *testing.B, endpoint string) (*proxy.Relay, func()) {
	if !pc.export {
		r := &proxy.Relay{Chain: pc.cfg.Chain(capabilities.New())}
		if r.Chain.Len() == 0 {
			r.Chain = nil
		}
		return r, func() {}
	}
	p, err := telemetry.NewProvider(context.Background(), telemetry.Settings{Endpoint: endpoint})
	require.NoError(b, err)
	cfg := pc.cfg
	cfg.Last = append(cfg.Last, p.Context())
	chain := cfg.Chain(capabilities.New())
	tap := telemetry.NewTap(p.NewConn(telemetry.ConnInfo{Chain: chain}), nil)
	chain.OnNote = tap.Note
	return &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}, func() {
		tap.Close()
		p.Close(100*time.Millisecond, nil)
	}
}

// clientHead is what the editor sent before the agent streams: a Zed-like
// client (it advertises the terminal-output extension), a session in a
// directory of its own, a prompt.
func clientHead(b *testing.B) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":` + string(rawjson.Quote(b.TempDir())) + `,"mcpServers":[]}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"go"}]}}` + "\n"
}

// agentHead is the agent's answers to initialize and session/new.
func agentHead(name, version string) string {
	return `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"` + name + `","version":"` + version + `"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}` + "\n"
}

// sessionUpdate is a session/update line of session s.
func sessionUpdate(update string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{` + update + `}}}` + "\n"
}

// textChunk is an agent_message_chunk of size bytes, '\n' included.
func textChunk(size int) []byte {
	head := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`
	tail := `"}}}}` + "\n"
	words := strings.Repeat("lorem ipsum dolor sit amet, ", size/28+1)
	return []byte(head + words[:max(0, size-len(head)-len(tail))] + tail)
}

func fixed(line []byte) func(w *bufio.Writer, i int) int {
	return func(w *bufio.Writer, _ int) int {
		n, _ := w.Write(line)
		return n
	}
}

func workloads() []workload {
	codex16 := agentHead("codex-acp", "0.16.0")
	termHead, termLine := terminalStream(10 << 10)
	return []workload{
		{name: "200B-chunk", head: codex16, op: fixed(textChunk(200)), size: 200},
		{name: "10KB-text", head: codex16, op: fixed(textChunk(10 << 10)), size: 10 << 10},
		{name: "1MB-text", head: codex16, op: fixed(textChunk(1 << 20)), size: 1 << 20},
		{name: "10KB-terminal-output", head: string(termHead), op: fixed(termLine), size: len(termLine)},
		growingSnapshots(agentHead("codex-acp", "0.13.0")),
	}
}

// growingSnapshots is codex-acp 0.13's way of streaming a command's output:
// each update repeats all of it so far, fenced. One op is one command of
// 1,000 snapshots, 200 B of output more each.
func growingSnapshots(head string) workload {
	const steps, step = 1000, 200
	var output strings.Builder
	for i := 0; output.Len() < steps*step; i++ {
		fmt.Fprintf(&output, "line %d of the output of a long build\n", i)
	}
	all := output.String()[:steps*step]
	// The output JSON-escaped, and where each of its bytes starts there:
	// the snapshots are written from it without building each.
	escaped := rawjson.AppendQuote(nil, all)
	escaped = escaped[1 : len(escaped)-1]
	at := make([]int, 0, len(all)+1)
	for i, e := 0, 0; i <= len(all); i++ {
		at = append(at, e)
		if i < len(all) && all[i] == '\n' {
			e += 2
		} else {
			e++
		}
	}
	snapshot := func(bw *bufio.Writer, id string, cut int) int {
		if all[cut-1] == '\n' {
			cut-- // the fence's own newline follows
		}
		n, _ := bw.WriteString(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","content":[{"type":"content","content":{"type":"text","text":"` + "```sh\\n")
		m, _ := bw.Write(escaped[:at[cut]])
		e, _ := bw.WriteString("\\n```\\n\"}}]}}}\n")
		return n + m + e
	}
	op := func(bw *bufio.Writer, i int) int {
		id := fmt.Sprintf("call_%d", i)
		n, _ := bw.WriteString(sessionUpdate(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"make","kind":"execute","status":"in_progress"`))
		for k := 1; k <= steps; k++ {
			n += snapshot(bw, id, k*step)
		}
		m, _ := bw.WriteString(sessionUpdate(`"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed"`))
		return n + m
	}
	return workload{name: "1000-growing-snapshots", head: head, op: op, size: op(bufio.NewWriterSize(io.Discard, 1<<20), 0), shrinks: true}
}

// BenchmarkRoundTrips is 1 KB requests sent one at a time to an echo agent
// and answered, through the bare relay (both ways) and each configuration:
// the p50 round trip (p50-ns), and its ratio to the bare relay's of the same
// round (x-bare-p50). The count is -benchtime 5000x.
func BenchmarkRoundTrips(b *testing.B) {
	receiver := otlptest.New(b)
	line := textChunk(1 << 10)
	var bareP50 time.Duration
	b.Run("bare", func(b *testing.B) {
		bareP50 = roundTrips(b, line, func(toAgent, toClient io.Writer, fromClient, fromAgent io.Reader) {
			go pipebench.Bare(toAgent, fromClient)
			go pipebench.Bare(toClient, fromAgent)
		})
	})
	for _, pc := range proxyConfigs {
		b.Run(pc.name, func(b *testing.B) {
			relay, done := pc.relay(b, receiver.URL)
			defer done()
			p50 := roundTrips(b, line, func(toAgent, toClient io.Writer, fromClient, fromAgent io.Reader) {
				conn := relay.Open(toAgent, toClient)
				go conn.Pump(acp.ClientToAgent, io.MultiReader(strings.NewReader(clientHead(b)), fromClient))
				go conn.Pump(acp.AgentToClient, io.MultiReader(strings.NewReader(agentHead("codex-acp", "0.16.0")), fromAgent))
			})
			if bareP50 > 0 {
				b.ReportMetric(float64(p50)/float64(bareP50), "x-bare-p50")
			}
		})
	}
}

// roundTrips runs b.N round trips of line through what start starts
// between a client's and an echo agent's pipes, and returns the p50.
func roundTrips(b *testing.B, line []byte, start func(toAgent, toClient io.Writer, fromClient, fromAgent io.Reader)) time.Duration {
	c2pR, c2pW, _ := os.Pipe()
	p2aR, p2aW, _ := os.Pipe()
	a2pR, a2pW, _ := os.Pipe()
	p2cR, p2cW, _ := os.Pipe()
	defer func() {
		for _, f := range []*os.File{c2pR, c2pW, p2aR, p2aW, a2pR, a2pW, p2cR, p2cW} {
			f.Close()
		}
	}()
	start(p2aW, p2cW, c2pR, a2pR)
	go func() { // the echo agent: what the client sends, back; the client's head is not answered
		r := bufio.NewReader(p2aR)
		for {
			l, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(l) == len(line) {
				if _, err := a2pW.Write(l); err != nil {
					return
				}
			}
		}
	}()
	rd := bufio.NewReader(p2cR)
	rtts := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		_, err := c2pW.Write(line)
		require.NoError(b, err)
		for {
			l, err := rd.ReadSlice('\n')
			require.NoError(b, err)
			if len(l) == len(line) {
				break // the agent's head goes by before the first answer
			}
		}
		rtts = append(rtts, time.Since(t0))
	}
	b.StopTimer()
	p50 := pipebench.Percentile(rtts, 50)
	b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(pipebench.Percentile(rtts, 99).Nanoseconds()), "p99-ns")
	return p50
}
