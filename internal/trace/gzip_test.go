package trace

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
)

// realTrace is a committed trace recorded from a real agent.
const realTrace = "../../testdata/traces/codex-0.13-plain-shell-5.jsonl"

// readAll reads every record of the trace in r, decompressing it when
// gzip'd, and returns the records' lines and the cut, if any.
func readAll(t *testing.T, r io.Reader) (lines []string, cut error) {
	t.Helper()
	in := Decompress(r)
	for rec, err := range NewReader(in).All() {
		require.NoError(t, err)
		lines = append(lines, string(rec.Line))
	}
	return lines, in.Cut()
}

func gzipped(t *testing.T, members ...[]byte) []byte {
	var b bytes.Buffer
	for _, m := range members {
		zw := gzip.NewWriter(&b)
		_, err := zw.Write(m)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
	}
	return b.Bytes()
}

// A gzip'd trace is told by its first bytes, not its name, and reads as the
// trace it holds; one gzip member per run (--record appends) reads as the
// runs one after the other.
func TestGzipTracesReadAsThePlainTrace(t *testing.T) {
	plain, err := os.ReadFile(realTrace)
	require.NoError(t, err)
	want, cut := readAll(t, bytes.NewReader(plain))
	require.NoError(t, cut)
	require.NotEmpty(t, want)
	twice := append(append([]string{}, want...), want...)
	for _, c := range []struct {
		name  string
		trace []byte
		want  []string
	}{
		{"plain", plain, want},
		{"gzip'd", gzipped(t, plain), want},
		{"two gzip members", gzipped(t, plain, plain), twice},
		{"a plain trace twice", append(append([]byte{}, plain...), plain...), twice},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, cut := readAll(t, bytes.NewReader(c.trace))
			assert.NoError(t, cut)
			assert.Equal(t, c.want, got)
		})
	}
}

// recordFlushed records the lines of the real trace through a gzip'd
// RecordFile, flushing after each as its timer would, and returns the
// file's bytes before Close, with the file's size after each flush.
func recordFlushed(t *testing.T) (lines []string, file []byte, flushedAt []int) {
	plain, err := os.ReadFile(realTrace)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "t.jsonl.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	r := RecordFile(f, time.Time{}, true)
	r.flushDelay = 0 // flushed by hand below
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(plain), "\n"), "\n") {
		r.write(acp.ClientToAgent, []byte(strings.TrimSuffix(l, "\n")+"\n"))
		require.NoError(t, r.Flush())
		r.file.written()
		st, err := f.Stat()
		require.NoError(t, err)
		flushedAt = append(flushedAt, int(st.Size()))
	}
	file, err = os.ReadFile(path)
	require.NoError(t, err)
	lines, _ = readAll(t, bytes.NewReader(plain))
	require.NoError(t, r.Close())
	return lines, file, flushedAt
}

// A gzip'd trace cut anywhere after its header (a file copied while it was
// written, a write cut short) reads up to the cut, less the record the cut
// split: every record flushed before the cut, never a malformed one, and
// the cut is reported; a file that ends with a flush is whole.
func TestACutGzipTraceReadsUpToTheCut(t *testing.T) {
	want, file, flushedAt := recordFlushed(t)
	const header = 10 // gzip's fixed header
	flushed := 0
	for n := header + 1; n < len(file); n++ {
		for flushed < len(flushedAt) && flushedAt[flushed] <= n {
			flushed++
		}
		got, cut := readAll(t, bytes.NewReader(file[:n]))
		if flushed > 0 && flushedAt[flushed-1] == n {
			require.NoError(t, cut, "the file ends with a whole member at %d", n)
		} else {
			require.Error(t, cut, "cut at %d of %d bytes", n, len(file))
		}
		require.LessOrEqual(t, len(got), len(want))
		require.Equal(t, want[:len(got)], append([]string{}, got...), "a prefix of the records, cut at %d", n)
		require.GreaterOrEqual(t, len(got), flushed, "every record flushed before byte %d", n)
	}
}

// A proxy killed with SIGKILL (it runs no code) loses what it had not
// flushed, and only that: the gzip'd file holds whole members, and the
// next run that appends to it leaves it readable to the end.
func TestAGzipTraceAKilledRunLeftTakesTheNextRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl.gz")
	record := func(agent string, close bool) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		require.NoError(t, err)
		r := RecordFile(f, time.Time{}, true)
		r.flushDelay = 0 // flushed by hand below
		require.NoError(t, r.Begin(ConnectionInfo{Agent: []string{agent}, Proxy: "test"}))
		r.emitted(time.Time{}, acp.ClientToAgent, []byte(`{"flushed":"`+agent+`"}`), true, nil)
		require.NoError(t, r.Flush())
		r.emitted(time.Time{}, acp.ClientToAgent, []byte(`{"last":"`+agent+`"}`), true, nil)
		if close {
			require.NoError(t, r.Close())
		} else {
			r.file.written() // what was flushed reached the file
			r.mu.Lock()      // killed: nothing more reaches the file
			r.closed = true
			r.mu.Unlock()
			require.NoError(t, f.Close())
		}
	}
	record("killed", false)
	record("next", true)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines, cut := readAll(t, bytes.NewReader(b))
	require.NoError(t, cut)
	assert.Equal(t, []string{"", `{"flushed":"killed"}`, "", `{"flushed":"next"}`, `{"last":"next"}`}, lines)
}

// A RecordFile flushes on its own, FlushDelay after a record at most: a
// proxy killed before it closed the file leaves every record but the last
// moment's readable. Close ends the gzip member.
func TestRecordFileFlushesWithoutBeingClosed(t *testing.T) {
	for _, gz := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		f, err := os.Create(path)
		require.NoError(t, err)
		r := RecordFile(f, time.Time{}, gz)
		r.flushDelay = 10 * time.Millisecond
		require.NoError(t, r.Begin(ConnectionInfo{Agent: []string{"agent"}, Proxy: "test"}))
		r.emitted(time.Time{}.Add(time.Second), acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize"}`), true, nil)
		readable := func() bool {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			lines, _ := readAll(t, bytes.NewReader(b))
			return len(lines) == 2
		}
		require.Eventually(t, readable, 10*time.Second, 5*time.Millisecond, "gzip %v", gz)
		require.NoError(t, r.Close())
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		lines, cut := readAll(t, bytes.NewReader(b))
		assert.NoError(t, cut)
		assert.Len(t, lines, 2)
		assert.Equal(t, gz, bytes.HasPrefix(b, gzipMagic), "gzip %v", gz)
	}
}

// writes keeps each Write it is given.
type writes struct{ all []string }

func (w *writes) Write(p []byte) (int, error) { w.all = append(w.all, string(p)); return len(p), nil }

// The recorder writes whole records, records of every size: a proxy killed
// between two writes leaves a file that ends with a whole record, to which
// the next run appends.
func TestRecordsReachTheFileWhole(t *testing.T) {
	var w writes
	r := NewRecorder(&w, time.Time{})
	for _, size := range []int{10, 40 << 10, 30 << 10, 100 << 10, 5, 64 << 10, 1} {
		line := `{"x":"` + strings.Repeat("a", size) + `"}`
		r.emitted(time.Time{}, acp.AgentToClient, []byte(line), true, nil)
	}
	require.NoError(t, r.Flush())
	require.Greater(t, len(w.all), 3)
	for i, b := range w.all {
		assert.True(t, strings.HasSuffix(b, "}\n"), "write %d ends with a record", i)
		assert.True(t, strings.HasPrefix(b, `{"t":`), "write %d starts with one", i)
	}
}
