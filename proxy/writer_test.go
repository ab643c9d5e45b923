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
