package trace

import (
	"bytes"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// BenchmarkTaps is the relay with its taps, pipe to pipe as proxy's
// BenchmarkThroughput runs it: --record with no filter (into a file, and
// gzip'd: what a file costs is not measured, only the recorder's own
// work), --stats with a
// filter that forwards every line, and both, against the bare copy loop of
// the same run.
func BenchmarkTaps(b *testing.B) {
	passThrough := filters.Func{FilterName: "pass", Fn: func(m *filters.Message, out filters.Emitter) error {
		return nil
	}}
	runs := []struct {
		name  string
		relay func() *proxy.Relay
	}{
		{"record", func() *proxy.Relay {
			return &proxy.Relay{Taps: []proxy.Tap{NewRecorder(io.Discard, time.Now())}}
		}},
		{"record-file", func() *proxy.Relay { // --record FILE: flushed a second after a record
			return &proxy.Relay{Taps: []proxy.Tap{RecordFile(discardCloser{}, time.Now(), false)}}
		}},
		{"record-gzip", func() *proxy.Relay { // --record FILE.gz
			return &proxy.Relay{Taps: []proxy.Tap{RecordFile(discardCloser{}, time.Now(), true)}}
		}},
		{"stats", func() *proxy.Relay {
			chain := filters.NewChain(capabilities.New(), passThrough)
			return &proxy.Relay{Chain: chain, Taps: []proxy.Tap{NewSummary(chain)}}
		}},
		{"record-stats-viewing-filter", func() *proxy.Relay {
			chain := filters.NewChain(capabilities.New(), passThrough)
			return &proxy.Relay{Chain: chain, Taps: []proxy.Tap{NewRecorder(io.Discard, time.Now()), NewSummary(chain)}}
		}},
	}
	for _, size := range []int{200, 10 << 10} {
		name := map[int]string{200: "200B", 10 << 10: "10KB"}[size]
		line := benchLine(size)
		b.Run(name+"/baseline-copy", func(b *testing.B) {
			pipebench.Run(b, nil, line, pipebench.CopyLoop)
		})
		for _, run := range runs {
			b.Run(name+"/"+run.name, func(b *testing.B) {
				r := run.relay()
				pipebench.Run(b, nil, line, func(dst io.Writer, src io.Reader) error {
					return r.Open(io.Discard, dst).Pump(acp.AgentToClient, src)
				})
			})
		}
	}
}

// benchLine is an agent_message_chunk of size bytes, '\n' included.
func benchLine(size int) []byte {
	head := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"`)
	tail := []byte(`"}}}}` + "\n")
	body := bytes.Repeat([]byte("x"), max(0, size-len(head)-len(tail)))
	return slices.Concat(head, body, tail)
}

// discardCloser is a file that keeps nothing.
type discardCloser struct{}

func (discardCloser) Write(p []byte) (int, error) { return len(p), nil }
func (discardCloser) Close() error                { return nil }
