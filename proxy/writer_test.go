package proxy

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinesWrittenDuringALongLineFollowIt(t *testing.T) {
	var out bytes.Buffer
	w := newLineWriter(&out, 16)
	require.NoError(t, w.writeLine([]byte(`{"before":1}`), true))
	w.beginLong()
	require.NoError(t, w.writePiece([]byte("a long ")))
	require.NoError(t, w.writeLine([]byte(`{"answer":1}`), true), "held, not written into the long line")
	require.NoError(t, w.flush(), "a flush sends what the long line has so far")
	assert.Equal(t, "{\"before\":1}\na long ", out.String())
	require.NoError(t, w.writeLine([]byte(`{"answer":2}`), true))
	require.NoError(t, w.writePiece([]byte("line")))
	require.NoError(t, w.endLong(true))
	require.NoError(t, w.flush())
	assert.Equal(t, "{\"before\":1}\na long line\n{\"answer\":1}\n{\"answer\":2}\n", out.String())
}

// What waits behind a long line is bounded: past maxHeld, a writer waits
// for the line's end instead of growing the queue.
func TestPastMaxHeldAWriterWaitsForTheLongLineToEnd(t *testing.T) {
	w := newLineWriter(io.Discard, 64)
	w.beginLong()
	require.NoError(t, w.writeLine(bytes.Repeat([]byte("x"), maxHeld-8), true))
	done := make(chan error, 1)
	go func() { done <- w.writeLine([]byte(`{"one":"too many"}`), true) }()
	select {
	case <-done:
		require.Fail(t, "a line was held past maxHeld")
	case <-time.After(50 * time.Millisecond):
	}
	require.NoError(t, w.endLong(true))
	require.NoError(t, <-done)
	assert.Empty(t, w.held)
}

// recordedWrites keeps each slice it is given, as given.
type recordedWrites struct{ writes [][]byte }

func (r *recordedWrites) Write(p []byte) (int, error) {
	r.writes = append(r.writes, p)
	return len(p), nil
}

// A big run of lines with nothing buffered before it goes to the stream
// as it is, in one write, not copied; a small one, or one after buffered
// bytes, goes through the buffer, after what it holds; while a long line
// is open, a run waits for its end like any line.
func TestARunIsWrittenAsItIsWhenNothingWaitsBeforeIt(t *testing.T) {
	run := bytes.Repeat([]byte("0123456789abcde\n"), directRun/16)
	dst := &recordedWrites{}
	lw := newLineWriter(dst, ioBufferSize)
	require.NoError(t, lw.writeRun(run))
	require.Len(t, dst.writes, 1)
	assert.Same(t, &run[0], &dst.writes[0][0], "the run itself was written")

	dst.writes = nil
	require.NoError(t, lw.writeLine([]byte("first"), true))
	require.NoError(t, lw.writeRun(run))
	require.NoError(t, lw.writeRun([]byte("small\n")))
	require.NoError(t, lw.flush())
	var all []byte
	for _, w := range dst.writes {
		assert.NotSame(t, &run[0], &w[0], "after buffered bytes, the run goes through the buffer")
		all = append(all, w...)
	}
	assert.Equal(t, append(append([]byte("first\n"), run...), "small\n"...), all)

	dst.writes = nil
	lw.beginLong()
	require.NoError(t, lw.writePiece([]byte("long")))
	done := make(chan error)
	go func() { done <- lw.writeRun(run) }()
	require.NoError(t, <-done) // held: it does not wait below maxHeld
	require.NoError(t, lw.endLong(true))
	require.NoError(t, lw.flush())
	all = nil
	for _, w := range dst.writes {
		all = append(all, w...)
	}
	assert.Equal(t, append([]byte("long\n"), run...), all)
}
