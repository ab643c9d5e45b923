package proxy

import (
	"bytes"
	"io"
)

// framer splits a byte stream into '\n'-terminated lines. It knows nothing
// of JSON: a line is whatever lies between two newlines.
//
// It reads into one buffer and returns each line where it lies in it. A
// line longer than the buffer grows the buffer and goes on being read in
// place, so no line's bytes are copied to assemble it (a line of a
// command's output snapshot is often hundreds of KiB). A line longer than
// max bytes is returned in pieces, so that memory stays bounded whatever
// the peer sends: next returns what the buffer holds with more set, and
// each call of piece the next part, until one returns more unset.
type framer struct {
	src  *countedReader
	buf  []byte
	r, w int // buf[r:w] is read and not yet returned
	size int // the buffer's size while lines fit in it
	max  int
	// given: the buffer holds a part of a line a filter keeps (give); it
	// is not written again, and the framer reads on into spare (a buffer
	// given before and handed back) or a new one.
	given bool
	spare []byte
	// giveFn is give, made once for every line to carry.
	giveFn func(part, spare []byte) ([]byte, bool)
	// beforeFill, if set, is called before the buffer is refilled, which
	// moves or overwrites the lines returned before: what still points
	// into them must be done with by then.
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
	// give, for a whole line, gives up the buffer it lies in to whoever
	// keeps a part of it (framer.give); nil for a piece of a long line.
	give func(part, spare []byte) ([]byte, bool)
}

func newFramer(r io.Reader, bufSize, max int) *framer {
	f := &framer{src: &countedReader{r: r}, buf: make([]byte, bufSize), size: bufSize, max: max}
	f.giveFn = f.give
	return f
}

// minGiven is the least part of a line worth a buffer of its own (give):
// a shorter one costs less to copy.
const minGiven = 32 << 10

// give gives up the buffer that holds part, a part of the line just
// returned, to a filter that keeps it past the line (filters.Message.Keep),
// and reports whether it did; spare is a buffer given before that its
// keeper lets go of now, to read into next. A buffer has one keeper at a
// time: given, it goes again only to the keeper that hands it back; and
// only for a part of at least minGiven bytes and a quarter of the buffer,
// so what a kept part holds alive is at most four times its size. Nothing
// is copied: the framer reads on into the buffer's free end, and moves to
// another buffer where it would have moved the bytes to its start.
func (f *framer) give(part, spare []byte) ([]byte, bool) {
	again := len(spare) > 0 && &spare[:1][0] == &f.buf[0]
	if f.given && !again || len(part) < minGiven || 4*len(part) < len(f.buf) {
		return nil, false
	}
	if len(spare) > 0 && !again {
		f.spare = spare[:cap(spare)]
	}
	f.given = true
	return f.buf, true
}

// leave moves to another buffer, the spare when it is large enough, with
// the bytes not yet returned: the buffer was given away.
func (f *framer) leave() {
	buf := f.spare
	if len(buf) < len(f.buf) {
		buf = make([]byte, len(f.buf))
	}
	f.w = copy(buf, f.buf[f.r:f.w])
	f.r = 0
	f.buf, f.spare, f.given = buf, nil, false
}

// window is what has been read and not yet returned, valid until the
// next call; discard(n) returns its first n bytes, as lines would.
func (f *framer) window() []byte { return f.buf[f.r:f.w] }

func (f *framer) discard(n int) { f.r += n }

// buffered reports whether input is already waiting, so the caller can defer
// flushing its output until it is not.
func (f *framer) buffered() bool { return f.w > f.r }

// next returns the next line. At a clean end of input it returns io.EOF; a
// last line without '\n' is returned with terminated unset and a nil error.
func (f *framer) next() (line, error) {
	if i := bytes.IndexByte(f.buf[f.r:f.w], '\n'); i >= 0 {
		return f.take(i), nil
	}
	if f.beforeFill != nil {
		if err := f.beforeFill(); err != nil {
			return line{}, err
		}
	}
	return f.fill(true)
}

// piece returns the next part of a long line.
func (f *framer) piece() (line, error) {
	return f.fill(false)
}

// fill reads until a line ends, the buffer is full at the longest line
// allowed (the part read is returned with more set), or the source fails.
// Only the bytes not yet returned are kept: the caller is done with the
// rest. grow says whether a line may grow the buffer (next's); a long
// line's later pieces (piece's) are what each read brings.
func (f *framer) fill(grow bool) (line, error) {
	if f.r == f.w {
		f.restart()
	}
	for {
		if f.w == len(f.buf) {
			if f.r == 0 && (!grow || len(f.buf) >= f.max) {
				return f.takeAll(true), nil // stream it: no copy at all
			}
			f.makeRoom()
		}
		searched := f.w
		n, err := f.src.Read(f.buf[f.w:])
		f.w += n
		if i := bytes.IndexByte(f.buf[searched:f.w], '\n'); i >= 0 {
			return f.take(searched - f.r + i), nil
		}
		if err == nil && !grow && f.w > f.r {
			return f.takeAll(true), nil // a long line's bytes leave as they arrive
		}
		if err != nil {
			if err == io.EOF && (f.w > f.r || !grow) {
				// A final unterminated line is still a line; a long
				// line's end at EOF ends it.
				return f.takeAll(false), nil
			}
			if f.w > f.r && !grow {
				return f.takeAll(true), err
			}
			return line{}, err
		}
	}
}

// restart reads from the buffer's start again: nothing in it is left to
// return.
func (f *framer) restart() {
	if f.given {
		f.leave()
		return
	}
	f.r, f.w = 0, 0
}

// makeRoom makes room after the bytes not yet returned, which fill the
// buffer to its end: it moves them to its start (or, given away, to another
// buffer), or, when they fill it from its start, grows it, up to max.
func (f *framer) makeRoom() {
	switch {
	case f.r > 0 && f.given:
		f.leave()
	case f.r > 0:
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	default:
		buf := make([]byte, min(2*len(f.buf), max(f.max, f.size)))
		f.w = copy(buf, f.buf[:f.w])
		f.buf, f.given = buf, false
	}
}

// take returns the line that ends i bytes into what is not yet returned.
func (f *framer) take(i int) line {
	start := f.r
	f.r += i + 1
	return line{bytes: f.buf[start : f.r-1], terminated: true, wire: f.buf[start:f.r], give: f.giveFn}
}

// takeAll returns all that is not yet returned, as part of a line.
func (f *framer) takeAll(more bool) line {
	b := f.buf[f.r:f.w]
	f.r = f.w
	return line{bytes: b, more: more}
}
