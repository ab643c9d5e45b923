package telemetry

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// BenchmarkExport is the relay pipe to pipe, as proxy's BenchmarkThroughput
// runs it, with OpenTelemetry export off (the relay as it is without the
// flag or variable: no tap, no chain) and on (the trace-context filter and
// the tap, exporting to an OTLP receiver in the process, to a port nothing
// listens on, or to a collector that takes the connection and never
// answers), against the bare copy loop of the same run. The
// lines are agent_message_chunks, and tool_call_updates of one call that
// stream 10 KB of terminal output each (every one read for its call's
// span). cpu-ns/op counts every goroutine: the tap's and the SDK's too;
// left-out/op is the share of lines the tap had no room for.
func BenchmarkExport(b *testing.B) {
	r := otlptest.New(b)
	closed := closedPort(b)
	hanging := otlptest.Hanging(b)
	lines := []struct {
		name string
		line []byte
	}{
		{"200B-chunk", chunkLine(200)},
		{"10KB-chunk", chunkLine(10 << 10)},
		{"10KB-tool-output", toolOutputLine(10 << 10)},
	}
	for _, l := range lines {
		b.Run(l.name+"/baseline-copy", func(b *testing.B) {
			pipebench.Run(b, nil, l.line, pipebench.CopyLoop)
		})
		b.Run(l.name+"/relay-export-off", func(b *testing.B) {
			relay := &proxy.Relay{}
			pipebench.Run(b, nil, l.line, func(dst io.Writer, src io.Reader) error {
				return relay.Open(io.Discard, dst).Pump(acp.AgentToClient, src)
			})
		})
		for _, to := range []struct{ name, endpoint string }{{"receiver", r.URL}, {"unreachable", closed}, {"hanging", hanging}} {
			b.Run(l.name+"/relay-export-on-"+to.name, func(b *testing.B) {
				benchExport(b, to.endpoint, l.line)
			})
		}
	}
}

// benchExport is the relay as the CLI builds it with export on.
func benchExport(b *testing.B, endpoint string, line []byte) {
	p, err := NewProvider(context.Background(), Settings{Endpoint: endpoint})
	require.NoError(b, err)
	chain := filters.NewChain(capabilities.New(), p.Context())
	tap := NewTap(p.NewConn(ConnInfo{Chain: chain}), nil)
	chain.OnNote = tap.Note
	relay := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}
	pipebench.Run(b, toolCallLine(), line, func(dst io.Writer, src io.Reader) error {
		return relay.Open(io.Discard, dst).Pump(acp.AgentToClient, src)
	})
	b.StopTimer()
	b.ReportMetric(float64(tap.dropped.Load())/float64(b.N), "left-out/op")
	tap.Close()
	p.Close(100*time.Millisecond, nil)
}

// closedPort is the URL of a loopback port nothing listens on.
func closedPort(b testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// chunkLine is an agent_message_chunk of size bytes, '\n' included.
func chunkLine(size int) []byte {
	head := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`)
	tail := []byte(`"}}}}` + "\n")
	return slices.Concat(head, bytes.Repeat([]byte("x"), max(0, size-len(head)-len(tail))), tail)
}

// toolCallLine opens the call toolOutputLine streams into.
func toolCallLine() []byte {
	return []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"make","kind":"execute","status":"in_progress"}}}` + "\n")
}

// toolOutputLine is a tool_call_update of size bytes streaming terminal
// output, as codex-acp sends to a client with the extension.
func toolOutputLine(size int) []byte {
	head := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"`)
	tail := []byte(`"}}}}}` + "\n")
	return slices.Concat(head, bytes.Repeat([]byte("line of output\\n"), max(0, size-len(head)-len(tail))/16), tail)
}

// BenchmarkExportLatency is round trips of a 1 KB tool_call_update through
// an echo "agent" and the relay's two pumps, with export off and on (to the
// receiver): the p50 and p99 round trip, which is what export adds to what
// a user waits for.
func BenchmarkExportLatency(b *testing.B) {
	r := otlptest.New(b)
	line := toolOutputLine(1 << 10)
	for _, on := range []bool{false, true} {
		name := "relay-export-off"
		if on {
			name = "relay-export-on"
		}
		b.Run(name, func(b *testing.B) {
			relay := &proxy.Relay{}
			if on {
				p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
				require.NoError(b, err)
				defer p.Close(time.Second, nil)
				chain := filters.NewChain(capabilities.New(), p.Context())
				tap := NewTap(p.NewConn(ConnInfo{Chain: chain}), nil)
				defer tap.Close()
				relay = &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}
			}
			pingPong(b, relay, line)
		})
	}
}

// pingPong sends line through relay to an echo agent and back b.N times,
// one at a time, and reports the round trips' p50 and p99.
func pingPong(b *testing.B, relay *proxy.Relay, line []byte) {
	c2pR, c2pW, _ := os.Pipe()
	p2aR, p2aW, _ := os.Pipe()
	a2pR, a2pW, _ := os.Pipe()
	p2cR, p2cW, _ := os.Pipe()
	conn := relay.Open(p2aW, p2cW)
	go conn.Pump(acp.ClientToAgent, c2pR)
	go conn.Pump(acp.AgentToClient, a2pR)
	go func() { // the echo agent
		_, _ = io.Copy(a2pW, p2aR)
		a2pW.Close()
	}()
	rd := bufio.NewReader(p2cR)
	rtts := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		_, err := c2pW.Write(line)
		require.NoError(b, err)
		_, err = rd.ReadSlice('\n')
		require.NoError(b, err)
		rtts = append(rtts, time.Since(t0))
	}
	b.StopTimer()
	for _, f := range []*os.File{c2pW, c2pR, p2aR, p2aW, a2pR, a2pW, p2cR, p2cW} {
		f.Close() // ends the pumps and the echo agent
	}
	slices.Sort(rtts)
	b.ReportMetric(float64(rtts[len(rtts)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(rtts[len(rtts)*99/100].Nanoseconds()), "p99-ns")
}
