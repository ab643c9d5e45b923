package proxy

import (
	"bufio"
	"io"
	"sync"
)

// lineWriter is the single writer of one direction. Lines from the pump,
// from a filter answering the other side, and from coalescing timers all go
// through it, one whole line at a time.
type lineWriter struct {
	mu    sync.Mutex
	w     *bufio.Writer
	close func() error // closes the underlying stream, if it can be closed
	err   error        // the first write error; later writes fail with it

	messages, bytes int64 // guarded by mu
}

func newLineWriter(w io.Writer, size int) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, size)}
	if c, ok := w.(io.Closer); ok {
		lw.close = c.Close
	}
	return lw
}

// writeLine writes b and, if eol, its '\n'.
func (lw *lineWriter) writeLine(b []byte, eol bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.writeLocked(b, eol)
}

func (lw *lineWriter) writeLocked(b []byte, eol bool) error {
	if err := lw.writeRaw(b); err != nil {
		return err
	}
	return lw.endLine(eol, len(b))
}

// writeWire writes one whole line, '\n' included, as it was read.
func (lw *lineWriter) writeWire(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if err := lw.writeRaw(b); err != nil {
		return err
	}
	lw.messages++
	lw.bytes += int64(len(b))
	return nil
}

// counts returns the messages and bytes written so far.
func (lw *lineWriter) counts() (messages, bytes int64) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.messages, lw.bytes
}

// flush sends what is buffered.
func (lw *lineWriter) flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.flushLocked()
}

func (lw *lineWriter) flushLocked() error {
	if lw.err != nil {
		return lw.err
	}
	if err := lw.w.Flush(); err != nil {
		lw.err = err
	}
	return lw.err
}

// closeStream flushes and closes the underlying stream: the peer sees EOF.
func (lw *lineWriter) closeStream() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	err := lw.flushLocked()
	if lw.close != nil {
		if cerr := lw.close(); err == nil {
			err = cerr
		}
		lw.close = nil
	}
	if lw.err == nil {
		lw.err = io.ErrClosedPipe
	}
	return err
}

// writeRaw writes part of a long line; the caller holds mu.
func (lw *lineWriter) writeRaw(b []byte) error {
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(b); err != nil {
		lw.err = err
	}
	return lw.err
}

// endLine ends a long line written with writeRaw; the caller holds mu.
func (lw *lineWriter) endLine(eol bool, n int) error {
	if eol {
		if err := lw.w.WriteByte('\n'); err != nil {
			lw.err = err
			return err
		}
		n++
	}
	lw.messages++
	lw.bytes += int64(n)
	return nil
}
