package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/stretchr/testify/require"
)

// The relay's throughput is measured pipe to pipe, as it runs between an
// editor and an agent, against the bare 32 KiB copy loop that io.Copy
// falls back to for pipes (the baseline of the same run).

func benchLine(size int) []byte {
	head := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`)
	tail := []byte(`"}}}}` + "\n")
	body := bytes.Repeat([]byte("x"), max(0, size-len(head)-len(tail)))
	return slices.Concat(head, body, tail)
}

// pipeBench runs relay over OS pipes on b.N lines of size bytes.
func pipeBench(b *testing.B, size int, relay func(dst io.Writer, src io.Reader) error) {
	pipebench.Run(b, nil, benchLine(size), relay)
}

func BenchmarkThroughput(b *testing.B) {
	passThrough := filters.Func{FilterName: "pass", Fn: func(m *filters.Message, out filters.Emitter) error {
		return nil
	}}
	for _, size := range []int{200, 10 << 10, 1 << 20} {
		name := map[int]string{200: "200B", 10 << 10: "10KB", 1 << 20: "1MB"}[size]
		b.Run(name+"/baseline-copy", func(b *testing.B) {
			pipeBench(b, size, pipebench.CopyLoop)
		})
		b.Run(name+"/relay", func(b *testing.B) {
			pipeBench(b, size, func(dst io.Writer, src io.Reader) error {
				return (&Relay{}).Open(io.Discard, dst).Pump(acp.AgentToClient, src)
			})
		})
		b.Run(name+"/relay-viewing-filter", func(b *testing.B) {
			r := &Relay{Chain: filters.NewChain(capabilities.New(), passThrough)}
			pipeBench(b, size, func(dst io.Writer, src io.Reader) error {
				return r.Open(io.Discard, dst).Pump(acp.AgentToClient, src)
			})
		})
	}
}

// BenchmarkPingPong measures round trips of a 1 KB request through an echo
// "agent", directly and through the relay's two pumps. The difference of the
// percentiles is the latency the proxy adds.
func BenchmarkPingPong(b *testing.B) {
	line := benchLine(1 << 10)
	for _, viaProxy := range []bool{false, true} {
		name := "direct"
		if viaProxy {
			name = "relay"
		}
		b.Run(name, func(b *testing.B) {
			// client → [proxy] → agent (echo) → [proxy] → client
			c2pR, c2pW, _ := os.Pipe()
			p2aR, p2aW, _ := os.Pipe()
			a2pR, a2pW, _ := os.Pipe()
			p2cR, p2cW, _ := os.Pipe()
			agentIn, agentOut := c2pR, p2cW
			if viaProxy {
				agentIn, agentOut = p2aR, a2pW
				conn := (&Relay{}).Open(p2aW, p2cW)
				go conn.Pump(acp.ClientToAgent, c2pR)
				go conn.Pump(acp.AgentToClient, a2pR)
			}
			go func() { // the echo agent
				r := bufio.NewReader(agentIn)
				for {
					l, err := r.ReadSlice('\n')
					if err != nil {
						return
					}
					if _, err := agentOut.Write(l); err != nil {
						return
					}
				}
			}()
			rd := bufio.NewReader(p2cR)
			rtts := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if _, err := c2pW.Write(line); err != nil {
					require.NoError(b, err)
				}
				if _, err := rd.ReadSlice('\n'); err != nil {
					require.NoError(b, err)
				}
				rtts = append(rtts, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(rtts)
			b.ReportMetric(float64(rtts[len(rtts)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(rtts[len(rtts)*99/100].Nanoseconds()), "p99-ns")
			for _, f := range []*os.File{c2pR, c2pW, p2aR, p2aW, a2pR, a2pW, p2cR, p2cW} {
				f.Close()
			}
		})
	}
}

func ExampleRelay() {
	var toAgent, toClient bytes.Buffer
	conn := (&Relay{}).Open(&toAgent, &toClient)
	_ = conn.Pump(acp.ClientToAgent, bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`+"\n")))
	fmt.Print(toAgent.String())
	// Output: {"jsonrpc":"2.0","id":1,"method":"initialize"}
}
