package proxy

import (
	"bytes"
	"io"
	"strings"
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

// recordedWrites keeps each slice it is given, as given, and what it held
// then.
type recordedWrites struct {
	writes [][]byte
	texts  []string
}

func (r *recordedWrites) Write(p []byte) (int, error) {
	r.writes = append(r.writes, p)
	r.texts = append(r.texts, string(p))
	return len(p), nil
}

// A big run of lines goes to the stream as it is, in one write after what
// is buffered, not copied; a small one goes through the buffer, after what
// it holds; while a long line is open, a run waits for its end like any
// line.
func TestABigRunIsWrittenAsItIs(t *testing.T) {
	run := bytes.Repeat([]byte("0123456789abcde\n"), directRun/16)
	dst := &recordedWrites{}
	lw := newLineWriter(dst, ioBufferSize)
	require.NoError(t, lw.writeRun(run))
	require.Len(t, dst.writes, 1)
	assert.Same(t, &run[0], &dst.writes[0][0], "the run itself was written")

	dst.writes, dst.texts = nil, nil
	require.NoError(t, lw.writeLine([]byte("first"), true))
	require.NoError(t, lw.writeRun(run))
	require.NoError(t, lw.writeRun([]byte("small\n")))
	require.NoError(t, lw.flush())
	require.Len(t, dst.writes, 3)
	assert.Equal(t, "first\n", dst.texts[0], "what was buffered, first")
	assert.Same(t, &run[0], &dst.writes[1][0], "then the run itself")
	assert.Equal(t, string(run), dst.texts[1])
	assert.Equal(t, "small\n", dst.texts[2])

	dst.writes, dst.texts = nil, nil
	lw.beginLong()
	require.NoError(t, lw.writePiece([]byte("long")))
	done := make(chan error)
	go func() { done <- lw.writeRun(run) }()
	require.NoError(t, <-done) // held: it does not wait below maxHeld
	require.NoError(t, lw.endLong(true))
	require.NoError(t, lw.flush())
	assert.Equal(t, "long\n"+string(run), strings.Join(dst.texts, ""))
}

// A long line goes to the stream in one write, after what is buffered,
// not copied, its '\n' buffered to go with what follows; written as read
// (writeRun), its '\n' goes with it.
func TestALongLineIsOneWrite(t *testing.T) {
	line := bytes.Repeat([]byte("x"), directRun)
	dst := &recordedWrites{}
	lw := newLineWriter(dst, ioBufferSize)
	require.NoError(t, lw.writeLine([]byte("short"), true))
	require.NoError(t, lw.writeLine(line, true))
	require.NoError(t, lw.writeLine([]byte("next"), true))
	require.NoError(t, lw.flush())
	require.Len(t, dst.writes, 3, "what was buffered, the line, what followed")
	assert.Equal(t, "short\n", dst.texts[0])
	assert.Same(t, &line[0], &dst.writes[1][0], "the line itself was written")
	assert.Equal(t, string(line), dst.texts[1])
	assert.Equal(t, "\nnext\n", dst.texts[2], "its '\\n' went with what followed")

	dst.writes, dst.texts = nil, nil
	wire := append(line, '\n')
	require.NoError(t, lw.writeRun(wire))
	require.Len(t, dst.writes, 1)
	assert.Equal(t, string(wire), dst.texts[0], "the line and its '\\n', in one write")
}
