package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// stuckFile is a trace file whose writes block until it is closed (a pipe
// nobody reads, a network mount that hangs).
type stuckFile struct {
	once   sync.Once
	closed chan struct{}
}

func (f *stuckFile) Write(p []byte) (int, error) { <-f.closed; return 0, os.ErrClosed }
func (f *stuckFile) Close() error                { f.once.Do(func() { close(f.closed) }); return nil }

// panickyFile panics when written to.
type panickyFile struct{}

func (panickyFile) Write([]byte) (int, error) { panic("file bug") }
func (panickyFile) Close() error              { return nil }

// The corpus both ways through a relay that records into f: the relay
// writes every byte, and returns, whatever f does.
func relayRecording(t *testing.T, rec *Recorder) {
	t.Helper()
	in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "transparency", "corpus.jsonl"))
	require.NoError(t, err)
	r := &proxy.Relay{Taps: []proxy.Tap{rec}}
	var toAgent, toClient bytes.Buffer
	c := r.Open(&toAgent, &toClient)
	for range 50 { // 50 times the corpus, past the recorder's buffers
		require.NoError(t, c.Pump(acp.ClientToAgent, bytes.NewReader(in)))
		require.NoError(t, c.Pump(acp.AgentToClient, bytes.NewReader(in)))
	}
	assert.True(t, bytes.Equal(bytes.Repeat(in, 50), toAgent.Bytes()), "every byte relayed")
	assert.True(t, bytes.Equal(bytes.Repeat(in, 50), toClient.Bytes()), "every byte relayed")
}

// A trace file that blocks never holds up the relay: --record to a pipe
// nobody reads, or to a mount that hangs, costs the session nothing; Close
// gives up on the file after closeWait and says so.
func TestAStuckTraceFileNeverSlowsTheRelay(t *testing.T) {
	for _, gz := range []bool{false, true} {
		f := &stuckFile{closed: make(chan struct{})}
		rec := RecordFile(f, time.Now(), gz)
		rec.file.closeWait = 50 * time.Millisecond
		relayRecording(t, rec)
		assert.ErrorContains(t, rec.Close(), "did not take its last records within 50ms", "gzip %v", gz)
	}
}

// A trace file that fails, even by panicking, or does not keep up, stops
// the recording (End reports it, so the relay logs it), and the relay goes
// on.
func TestATraceFileThatFailsStopsTheRecordingNotTheRelay(t *testing.T) {
	for _, c := range []struct {
		name string
		file io.WriteCloser
		max  int
		want string
	}{
		{"panics", panickyFile{}, maxUnwritten, "writing the trace file panicked: file bug"},
		{"falls behind", &stuckFile{closed: make(chan struct{})}, 64 << 10, "the trace file is not keeping up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := RecordFile(c.file, time.Now(), false)
			rec.file.max = c.max
			rec.file.closeWait = 50 * time.Millisecond
			relayRecording(t, rec)
			rec.file.written()
			assert.ErrorContains(t, rec.End(acp.ClientToAgent), c.want)
			assert.ErrorContains(t, rec.Close(), c.want)
		})
	}
}

// What a RecordFile writes reaches the file in order, whole.
func TestARecordFileWritesEveryRecordInOrder(t *testing.T) {
	var got bytes.Buffer
	rec := RecordFile(nopCloser{&got}, time.Time{}, false)
	var want strings.Builder
	for i := range 5000 {
		line := `{"i":` + strings.Repeat("1", i%300+1) + `}`
		rec.emitted(time.Time{}, acp.AgentToClient, []byte(line), true, nil)
		want.WriteString(`{"t":0.000000,"dir":"agent->client","msg":` + line + "}\n")
	}
	require.NoError(t, rec.Close())
	assert.True(t, want.String() == got.String(), "the records, in order")
	assert.False(t, errors.Is(rec.Close(), os.ErrClosed))
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
