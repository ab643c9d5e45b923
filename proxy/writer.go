package proxy

import (
	"bufio"
	"io"
	"sync"
)

// maxHeld bounds the lines others write while a long line is open (see
// lineWriter). Past it they wait for the line to end: backpressure, not an
// unbounded queue. Filters add few and small lines, so this is far above
// what a real session holds.
const maxHeld = 1 << 20

// lineWriter is the single writer of one direction. Lines from the pump,
// from a filter answering the other side, and from coalescing timers all go
// through it, one whole line at a time.
//
// A line too long to filter is written in pieces as it arrives (beginLong,
// writePiece, endLong), and mu is not held while the pump waits for the
// next piece: a slow peer must not stall whoever else writes here. Whole
// lines written meanwhile are held back and follow the long line's end, so
// no line lands in the middle of another.
type lineWriter struct {
	mu    sync.Mutex
	w     *bufio.Writer
	dst   io.Writer    // what w writes to
	close func() error // closes the underlying stream, if it can be closed
	err   error        // the first write error; later writes fail with it

	open  bool       // a long line is being written in pieces
	held  []byte     // whole lines written while open, in order
	ended *sync.Cond // signalled, on mu, when a long line ends
}

func newLineWriter(w io.Writer, size int) *lineWriter {
	lw := &lineWriter{w: bufio.NewWriterSize(w, size), dst: w}
	lw.ended = sync.NewCond(&lw.mu)
	if c, ok := w.(io.Closer); ok {
		lw.close = c.Close
	}
	return lw
}

// writeLine writes b and, if eol, its '\n'.
func (lw *lineWriter) writeLine(b []byte, eol bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.writeLineLocked(b, eol)
}

// writeLineLocked is writeLine; the caller holds mu.
func (lw *lineWriter) writeLineLocked(b []byte, eol bool) error {
	for lw.open && len(lw.held) > 0 && len(lw.held)+len(b) >= maxHeld {
		lw.ended.Wait()
	}
	if lw.open {
		lw.held = append(lw.held, b...)
		if eol {
			lw.held = append(lw.held, '\n')
		}
		return lw.err
	}
	if len(b) >= directRun {
		return lw.writeLong(b, eol)
	}
	if err := lw.writeRaw(b); err != nil || !eol {
		return err
	}
	return lw.writeEOL()
}

// writeLong writes b, a whole line of directRun bytes or more, to the
// stream at once, after what is buffered, without copying it (a long line
// costs one write, as it does a byte-copying relay); its '\n', if eol, is
// buffered, to go with what follows. The caller holds mu; nothing is open.
func (lw *lineWriter) writeLong(b []byte, eol bool) error {
	if err := lw.writeDirect(b); err != nil || !eol {
		return err
	}
	return lw.writeEOL()
}

// writeDirect writes b to the stream at once, after what is buffered,
// without copying it into the buffer. The caller holds mu.
func (lw *lineWriter) writeDirect(b []byte) error {
	if lw.w.Buffered() > 0 {
		if err := lw.flushLocked(); err != nil {
			return err
		}
	}
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.dst.Write(b); err != nil {
		lw.err = err
	}
	return lw.err
}

// directRun is the size from which a line, or a run of lines, goes to the
// stream at once rather than through the buffer (writeLong).
const directRun = 32 << 10

// writeRun writes whole lines, each '\n' included, as they were read: a
// run of directRun bytes or more goes to the stream at once (writeLong),
// a smaller one joins the buffer, to go with what follows.
func (lw *lineWriter) writeRun(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.writeLineLocked(b, false)
}

// beginLong opens a long line: until endLong, only writePiece reaches the
// stream. Only the direction's pump calls it.
func (lw *lineWriter) beginLong() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.open = true
}

// writePiece writes the next part of the open long line.
func (lw *lineWriter) writePiece(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.writeRaw(b)
}

// endLong ends the open long line, with its '\n' if eol, and writes the
// lines held back meanwhile.
func (lw *lineWriter) endLong(eol bool) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.open = false
	lw.ended.Broadcast()
	var err error
	if eol {
		err = lw.writeEOL()
	}
	if len(lw.held) > 0 {
		if herr := lw.writeRaw(lw.held); err == nil {
			err = herr
		}
		lw.held = nil
	}
	return err
}

// writeThrough writes b to the stream at once, after what is buffered,
// without copying it into the buffer: the copying relay's write.
func (lw *lineWriter) writeThrough(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.writeDirect(b)
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

// writeRaw writes b to the stream; the caller holds mu.
func (lw *lineWriter) writeRaw(b []byte) error {
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(b); err != nil {
		lw.err = err
	}
	return lw.err
}

// writeEOL writes a '\n'; the caller holds mu.
func (lw *lineWriter) writeEOL() error {
	if lw.err != nil {
		return lw.err
	}
	lw.err = lw.w.WriteByte('\n')
	return lw.err
}
