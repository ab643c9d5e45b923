package live

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// The relay with its live view open against the relay without one, pipe
// to pipe as the proxy runs, on the agent's messages of a real session
// (codex-acp 0.13 streaming a 900-line command: 911 updates of 0.3 to 9
// KB, re-sent in a loop): at full speed, and at 10,000 messages a minute.
// "off" is the relay with no tap (no --serve, no --record); "record" the
// relay recording a trace (to nowhere), for scale; "live" the relay with
// --serve's tap and page, with no browser, with one that reads every
// update (an SSE client), and with one that asks for the updates and
// never reads them.

// sessionLines are the agent->client lines of a committed session.
func sessionLines(b *testing.B) [][]byte {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "traces", "codex-0.13-plain-shell-900.jsonl"))
	require.NoError(b, err)
	defer f.Close()
	var lines [][]byte
	tr := trace.NewReader(f)
	for {
		rec, err := tr.Next()
		if err == io.EOF {
			return lines
		}
		require.NoError(b, err)
		if rec.HasLine && rec.Dir == acp.AgentToClient {
			lines = append(lines, append(slices.Clip(rec.Line), '\n'))
		}
	}
}

// viewer is how the live page is watched during a run.
type viewer int

const (
	noView     viewer = iota // off: no tap
	nullTap                  // a tap that does nothing: what any observer costs the relay
	recordOnly               // a trace recorder, to io.Discard
	noBrowser                // --serve, nobody watching
	reading                  // --serve, a browser that takes every update
	stuck                    // --serve, a browser that asks and never reads
)

var viewers = []struct {
	name string
	v    viewer
}{{"off", noView}, {"null-tap", nullTap}, {"record", recordOnly}, {"live-no-browser", noBrowser}, {"live-browser", reading}, {"live-stuck-browser", stuck}}

// relayWith returns the relay for v, and a function that ends what it
// started and reports how many records its page left out.
func relayWith(b *testing.B, v viewer) (*proxy.Relay, func() int64) {
	r := &proxy.Relay{}
	switch v {
	case noView:
		return r, func() int64 { return 0 }
	case nullTap:
		r.Taps = []proxy.Tap{idleTap{}}
		return r, func() int64 { return 0 }
	case recordOnly:
		r.Taps = []proxy.Tap{trace.NewRecorder(io.Discard, time.Now())}
		return r, func() int64 { return 0 }
	}
	srv, err := Listen("127.0.0.1:0")
	require.NoError(b, err)
	r.Taps = []proxy.Tap{srv.Relay("bench", nil, time.Now(), trace.ConnectionInfo{Agent: []string{"codex-acp"}})}
	var conn net.Conn
	switch v {
	case reading:
		resp, err := http.Get(strings.Replace(srv.URL(), "/?", "/events?", 1))
		require.NoError(b, err)
		go func() { _, _ = io.Copy(io.Discard, resp.Body) }()
	case stuck:
		conn, err = net.Dial("tcp", srv.ln.Addr().String())
		require.NoError(b, err)
		fmt.Fprintf(conn, "GET /events?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n", srv.token, srv.port)
	}
	return r, func() int64 {
		srv.page.q.mu.Lock()
		missed := srv.page.q.missed
		srv.page.q.mu.Unlock()
		if conn != nil {
			conn.Close()
		}
		srv.Close(0)
		return missed
	}
}

// idleTap watches and does nothing.
type idleTap struct{}

func (idleTap) Passed(*proxy.Passage)                        {}
func (idleTap) Added(acp.Direction, time.Time, []byte, bool) {}
func (idleTap) Released(*proxy.Passage)                      {}
func (idleTap) Long(acp.Direction) proxy.LongLine            { return idleLong{} }
func (idleTap) End(acp.Direction) error                      { return nil }

type idleLong struct{}

func (idleLong) Piece([]byte)        {}
func (idleLong) End(time.Time, bool) {}

// heapPeak samples the heap in use until stop, and returns its peak.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	peak := make(chan uint64, 1)
	go func() {
		var top uint64
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			top = max(top, ms.HeapInuse)
			select {
			case <-stop:
				peak <- top
				return
			case <-t.C:
			}
		}
	}()
	return peak
}

// runPaced relays b.N lines of lines (in a loop) from a pipe to a pipe,
// one every interval (0: as fast as the relay takes them), and reports
// the time each took from its write to its read at the other end.
func runPaced(b *testing.B, lines [][]byte, interval time.Duration, relay *proxy.Relay) {
	inR, inW, err := os.Pipe()
	require.NoError(b, err)
	outR, outW, err := os.Pipe()
	require.NoError(b, err)
	defer inR.Close()
	defer outR.Close()
	var total int64
	for _, l := range lines {
		total += int64(len(l))
	}
	b.SetBytes(total / int64(len(lines)))
	sent, got := make([]int64, b.N), make([]int64, b.N)
	read := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for i := range b.N {
			if _, err := r.ReadSlice('\n'); err != nil {
				read <- err
				return
			}
			got[i] = time.Now().UnixNano()
		}
		read <- nil
	}()
	go func() {
		var w io.Writer = inW
		var bw *bufio.Writer
		if interval == 0 {
			bw = bufio.NewWriterSize(inW, 1<<20)
			w = bw
		}
		start := time.Now()
		for i := range b.N {
			if interval > 0 {
				time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
			}
			sent[i] = time.Now().UnixNano()
			_, _ = w.Write(lines[i%len(lines)])
		}
		if bw != nil {
			_ = bw.Flush()
		}
		inW.Close()
	}()
	b.ResetTimer()
	cpu0 := pipebench.CPUTime()
	require.NoError(b, relay.Open(io.Discard, outW).Pump(acp.AgentToClient, inR))
	require.NoError(b, <-read)
	b.StopTimer()
	outW.Close()
	b.ReportMetric(float64(pipebench.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
	if interval > 0 {
		lat := make([]int64, b.N)
		for i := range lat {
			lat[i] = got[i] - sent[i]
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[b.N/2])/1e3, "p50-µs")
		b.ReportMetric(float64(lat[b.N*99/100])/1e3, "p99-µs")
	}
}

// BenchmarkRelayLiveView runs each viewer at full speed and at 10,000
// messages a minute (one every 6 ms; -benchtime 2000x is 12 s of it),
// reporting the relay's CPU time per message, its latency when paced,
// the peak heap in use, and the messages the page left out.
func BenchmarkRelayLiveView(b *testing.B) {
	lines := sessionLines(b)
	for _, pace := range []struct {
		name     string
		interval time.Duration
	}{{"full-speed", 0}, {"10k-per-minute", 6 * time.Millisecond}} {
		for _, v := range viewers {
			b.Run(pace.name+"/"+v.name, func(b *testing.B) {
				runtime.GC()
				relay, end := relayWith(b, v.v)
				stop := make(chan struct{})
				peak := heapPeak(stop)
				runPaced(b, lines, pace.interval, relay)
				close(stop)
				missed := end()
				b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(missed), "missed")
			})
		}
	}
}
