package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// A line longer than --max-filter-line streams through in pieces, and its
// sender may pause in the middle of it, for as long as it likes: an agent
// that waits for the client before it finishes a 17 MiB line. Meanwhile the
// other direction goes on, with or without filters and recording.
//
// The tests play that scene scaled down: a --max-filter-line of 128 KiB
// rather than 16 MiB, and a line 17 times as long, paused after 16 times.
// What matters is a line past the limit, paused in its middle; megabytes
// would only slow the race detector.

const (
	longLineMax  = 128 << 10        // --max-filter-line of these tests
	longLineHead = 16 * longLineMax // sent before the pause
	longLineSize = 17 * longLineMax // the whole line, '\n' excluded
)

// answeringFilter answers every "ping" request itself, to its sender, and
// forwards it too: a line written into the other direction, which may be in
// the middle of a long line.
var answeringFilter = filters.Func{FilterName: "answer", Fn: func(m *filters.Message, out filters.Emitter) error {
	if m.Method() == "ping" {
		if err := out.Emit(m.Dir.Reverse(), []byte(`{"jsonrpc":"2.0","id":"pong","result":{}}`)); err != nil {
			return err
		}
	}
	return nil
}}

func longLineRelays() map[string]func(w io.Writer) *proxy.Relay {
	return map[string]func(io.Writer) *proxy.Relay{
		"no filters": func(w io.Writer) *proxy.Relay {
			return &proxy.Relay{Taps: []proxy.Tap{trace.NewRecorder(w, time.Now())}, MaxFilterLine: longLineMax}
		},
		"filters": func(w io.Writer) *proxy.Relay {
			chain := filters.NewChain(capabilities.New(), proxy.ViewingFilter, &proxy.HoldingFilter{}, answeringFilter)
			return &proxy.Relay{Chain: chain, Taps: []proxy.Tap{trace.NewRecorder(w, time.Now())}, MaxFilterLine: longLineMax}
		},
	}
}

func TestTheOtherDirectionFlowsWhileALongLinePauses(t *testing.T) {
	for name, relay := range longLineRelays() {
		for _, d := range []acp.Direction{acp.AgentToClient, acp.ClientToAgent} {
			t.Run(fmt.Sprintf("%s/long line %s", name, d), func(t *testing.T) {
				var recorded proxy.SyncBuffer
				r := relay(&recorded)
				run := startLongLine(t, r, d)
				request := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{}}`
				run.send(1-d, request)
				assert.Equal(t, request, run.next(1-d), "the request arrives while the %s line pauses", d)
				run.finish()

				if r.Chain.Len() > 0 {
					assert.Equal(t, `{"jsonrpc":"2.0","id":"pong","result":{}}`, run.next(d),
						"the filter's answer follows the long line, whole")
				}
				records := checkTrace(t, recorded.String())
				long, req := -1, -1
				for i, rec := range records {
					switch {
					case rec.Dir == d && len(rec.Line) == longLineSize:
						long = i
						assert.Equal(t, run.line, rec.Line, "the long line's record")
					case rec.Dir == 1-d && string(rec.Line) == request:
						req = i
					}
				}
				require.True(t, long >= 0 && req >= 0, "the trace holds the long line and the request")
				assert.Less(t, req, long, "the request was recorded while the long line was still arriving")
			})
		}
	}
}

// Each piece of a line too long to filter leaves as it arrives: while its
// sender pauses, its receiver has every byte sent.
func TestALongLinesBytesLeaveAsTheyArrive(t *testing.T) {
	for name, relay := range longLineRelays() {
		t.Run(name, func(t *testing.T) {
			run := startLongLine(t, relay(io.Discard), acp.AgentToClient)
			for _, n := range []int{1000, 1, longLineMax / 2} {
				run.more(n)
				require.Eventually(t, func() bool { return run.got.Load() == int64(run.sent) }, 10*time.Second, time.Millisecond,
					"the %d bytes sent, paused, had not all arrived", run.sent)
			}
			run.finish()
		})
	}
}

// checkTrace checks that trace is JSONL, one whole record a line, and
// returns its records.
func checkTrace(t *testing.T, recorded string) []trace.Record {
	t.Helper()
	for i, l := range strings.SplitAfter(recorded, "\n") {
		if l == "" {
			continue
		}
		require.True(t, strings.HasSuffix(l, "\n") && json.Valid([]byte(l)), "trace line %d is not one JSON value: %.200q", i+1, l)
	}
	var recs []trace.Record
	for rec, err := range trace.NewReader(strings.NewReader(recorded)).All() {
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	return recs
}

func TestAnswersWrittenDuringALongLineFollowItInTheStreamAndTheTrace(t *testing.T) {
	var recorded proxy.SyncBuffer
	chain := filters.NewChain(capabilities.New(), answeringFilter)
	r := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{trace.NewRecorder(&recorded, time.Now())}, MaxFilterLine: longLineMax}
	run := startLongLine(t, r, acp.AgentToClient)
	request := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	run.send(acp.ClientToAgent, request)
	assert.Equal(t, request, run.next(acp.ClientToAgent), "the request does not wait for its answer's turn")
	run.finish()
	assert.Equal(t, `{"jsonrpc":"2.0","id":"pong","result":{}}`, run.next(acp.AgentToClient))

	var toClient []string
	for _, rec := range checkTrace(t, recorded.String()) {
		if rec.Dir != acp.AgentToClient {
			continue
		}
		switch {
		case len(rec.Line) == longLineSize:
			toClient = append(toClient, "long line")
		case rec.HasOut && !rec.HasLine:
			toClient = append(toClient, "answer")
		}
	}
	assert.Equal(t, []string{"long line", "answer"}, toClient, "the trace's agent→client order is the wire's")
}

// longLineRun is a connection whose direction d is in the middle of a long
// line: its first longLineHead bytes have been relayed, the rest not sent.
type longLineRun struct {
	t     *testing.T
	d     acp.Direction
	line  []byte
	src   [2]*io.PipeWriter
	lines [2]chan string // the lines each receiver got, the long one excepted
	ended chan struct{}  // the long line's receiver read its '\n'
	pumps chan error
	sent  int          // bytes of the long line sent
	got   atomic.Int64 // bytes of the long line received
}

func startLongLine(t *testing.T, r *proxy.Relay, d acp.Direction) *longLineRun {
	t.Helper()
	run := &longLineRun{t: t, d: d, ended: make(chan struct{}), pumps: make(chan error, 2)}
	head, tail := `{"jsonrpc":"2.0","method":"x","params":"`, `"}`
	run.line = append([]byte(head), bytes.Repeat([]byte("a"), longLineSize-len(head)-len(tail))...)
	run.line = append(run.line, tail...)

	var srcR, dstR [2]*io.PipeReader
	var dstW [2]*io.PipeWriter
	for i := range 2 {
		srcR[i], run.src[i] = io.Pipe()
		dstR[i], dstW[i] = io.Pipe()
		run.lines[i] = make(chan string, 16)
	}
	c := r.Open(dstW[acp.ClientToAgent], dstW[acp.AgentToClient])
	headSeen := make(chan struct{})
	for _, dir := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		go func() { run.pumps <- c.Pump(dir, srcR[dir]) }()
		go run.receive(dir, dstR[dir], headSeen)
	}
	t.Cleanup(func() {
		for i := range 2 {
			run.src[i].Close()
			dstR[i].Close()
		}
	})
	run.more(longLineHead)
	select {
	case <-headSeen:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the long line's head did not reach its receiver")
	}
	return run
}

// receive reads what direction dir delivers. In the long line's direction,
// it checks the long line and closes headSeen once more than
// --max-filter-line of it has arrived: the pump is then streaming it.
func (run *longLineRun) receive(dir acp.Direction, r io.Reader, headSeen chan struct{}) {
	if dir == run.d {
		buf := make([]byte, 64<<10)
		n := 0
		for {
			k, err := r.Read(buf)
			got := buf[:k]
			end := bytes.IndexByte(got, '\n')
			if end >= 0 {
				got = got[:end]
			}
			if !bytes.Equal(got, run.line[n:min(len(run.line), n+len(got))]) {
				assert.Fail(run.t, "the long line differs", "after byte %d", n)
				return
			}
			n += len(got)
			run.got.Store(int64(n))
			if n > longLineMax && headSeen != nil {
				close(headSeen)
				headSeen = nil
			}
			if end >= 0 {
				if n != len(run.line) {
					assert.Fail(run.t, "the long line arrived short or long", "%d bytes, want %d", n, len(run.line))
				}
				close(run.ended)
				r = io.MultiReader(bytes.NewReader(buf[end+1:k]), r)
				break
			}
			if err != nil {
				return
			}
		}
	}
	br := bufio.NewReader(r)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return
		}
		run.lines[dir] <- strings.TrimSuffix(l, "\n")
	}
}

// next returns the next line direction dir delivers, or "" if none comes
// within seconds (it is then stuck behind the long line).
func (run *longLineRun) next(dir acp.Direction) string {
	select {
	case l := <-run.lines[dir]:
		return l
	case <-time.After(5 * time.Second):
		return ""
	}
}

// send writes one line into direction dir.
func (run *longLineRun) send(dir acp.Direction, line string) {
	_, err := io.WriteString(run.src[dir], line+"\n")
	require.NoError(run.t, err)
}

// more sends n more bytes of the long line.
func (run *longLineRun) more(n int) {
	_, err := run.src[run.d].Write(run.line[run.sent : run.sent+n])
	require.NoError(run.t, err)
	run.sent += n
}

// finish sends the rest of the long line, and ends both inputs.
func (run *longLineRun) finish() {
	t := run.t
	_, err := run.src[run.d].Write(append(run.line[run.sent:], '\n'))
	require.NoError(t, err)
	select {
	case <-run.ended:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the long line did not end")
	}
	for i := range 2 {
		run.src[i].Close()
	}
	for range 2 {
		require.NoError(t, <-run.pumps)
	}
}
