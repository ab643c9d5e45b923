package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// framer splits a byte stream into '\n'-terminated lines. It knows nothing
// of JSON: a line is whatever lies between two newlines.
//
// A line up to max bytes is returned whole. A longer one is returned in
// pieces, so that memory stays bounded whatever the peer sends: next
// returns the first max bytes with more set, and each call of piece the next
// part, until one returns more unset.
type framer struct {
	r   *bufio.Reader
	max int
	buf []byte // reused for lines longer than the reader's buffer
	src *countedReader
	// beforeFill, if set, is called before the reader's buffer is
	// refilled, which moves or overwrites the lines returned before:
	// what still points into them must be done with by then.
	beforeFill func() error
}

// countedReader counts the reads from the source: a line that needed none
// arrived with the one before it.
type countedReader struct {
	r     io.Reader
	reads int
}

func (c *countedReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// reads is how many times the framer has read its source.
func (f *framer) reads() int { return f.src.reads }

// line is one line or the first part of a long one. bytes is valid until the
// next call; it excludes the '\n'.
type line struct {
	bytes      []byte
	terminated bool   // ended in '\n' (false only for a last line at EOF)
	more       bool   // a long line: further pieces follow, via piece
	wire       []byte // bytes and its '\n' as read, when they are contiguous
}

func newFramer(r io.Reader, bufSize, max int) *framer {
	src := &countedReader{r: r}
	return &framer{r: bufio.NewReaderSize(src, bufSize), max: max, src: src}
}

// window is what has been read and not yet returned, valid until the
// next call; discard(n) returns its first n bytes, as lines would.
func (f *framer) window() []byte {
	w, _ := f.r.Peek(f.r.Buffered())
	return w
}

func (f *framer) discard(n int) { _, _ = f.r.Discard(n) } // buffered: cannot fail

// buffered reports whether input is already waiting, so the caller can defer
// flushing its output until it is not.
func (f *framer) buffered() bool { return f.r.Buffered() > 0 }

// next returns the next line. At a clean end of input it returns io.EOF; a
// last line without '\n' is returned with terminated unset and a nil error.
func (f *framer) next() (line, error) {
	if win := f.window(); len(win) > 0 {
		if i := bytes.IndexByte(win, '\n'); i >= 0 {
			f.discard(i + 1)
			return line{bytes: win[:i], terminated: true, wire: win[:i+1]}, nil
		}
	}
	if f.beforeFill != nil {
		if err := f.beforeFill(); err != nil {
			return line{}, err
		}
	}
	b, err := f.r.ReadSlice('\n')
	if err == nil {
		return line{bytes: b[:len(b)-1], terminated: true, wire: b}, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return f.last(b, err)
	}
	if len(b) >= f.max {
		return line{bytes: b, more: true}, nil // stream it: no copy at all
	}
	f.buf = append(f.buf[:0], b...)
	for {
		b, err = f.r.ReadSlice('\n')
		switch {
		case err == nil:
			f.buf = append(f.buf, b[:len(b)-1]...)
			return line{bytes: f.buf, terminated: true}, nil
		case errors.Is(err, bufio.ErrBufferFull):
			f.buf = append(f.buf, b...)
			if len(f.buf) >= f.max {
				return line{bytes: f.buf, more: true}, nil
			}
		default:
			f.buf = append(f.buf, b...)
			return f.last(f.buf, err)
		}
	}
}

// last handles the bytes read before an error: a final unterminated line is
// still a line.
func (f *framer) last(b []byte, err error) (line, error) {
	if len(b) > 0 && err == io.EOF {
		return line{bytes: b}, nil
	}
	return line{}, err
}

// piece returns the next part of a long line.
func (f *framer) piece() (line, error) {
	b, err := f.r.ReadSlice('\n')
	switch {
	case err == nil:
		return line{bytes: b[:len(b)-1], terminated: true}, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return line{bytes: b, more: true}, nil
	case err == io.EOF:
		return line{bytes: b}, nil // the long line was the last, unterminated
	default:
		return line{bytes: b, more: true}, err
	}
}
