package trace

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// gzipMagic are the first two bytes of every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// Input is a trace as it is read: decompressed when it is gzip'd. Whether
// it is, its first two bytes say (gzip's magic number), not a file's name,
// so that a .jsonl.gz file, a renamed one and gzip on stdin read alike.
//
// A gzip'd trace that ends early (a recording proxy killed before it
// closed the file) or is damaged past some point is read up to there:
// Read then returns a *CutError once and io.EOF after it, and Cut says so.
// A Reader drops the partial record such a cut leaves at its end.
type Input struct {
	br      *bufio.Reader
	r       io.Reader // br, or the gzip reader over it; nil until the first Read
	gzipped bool
	cut     error
}

// Decompress reads the trace in r, decompressing it when it is gzip'd.
// Nothing is read from r until the first Read.
func Decompress(r io.Reader) *Input {
	return &Input{br: bufio.NewReaderSize(r, 64<<10)}
}

// CutError is where a gzip'd trace ends early or is damaged.
type CutError struct{ Err error }

func (e *CutError) Error() string {
	return fmt.Sprintf("the gzip'd trace ends early or is damaged (%v): read up to there", e.Err)
}

func (e *CutError) Unwrap() error { return e.Err }

func (in *Input) Read(p []byte) (int, error) {
	if in.cut != nil {
		return 0, io.EOF
	}
	if in.r == nil {
		if err := in.open(); err != nil {
			return 0, err
		}
	}
	n, err := in.r.Read(p)
	if in.gzipped && err != nil && err != io.EOF {
		in.cut = err
		return n, &CutError{Err: err}
	}
	return n, err
}

// open looks at the first bytes and decides how to read the rest.
func (in *Input) open() error {
	head, _ := in.br.Peek(len(gzipMagic))
	if string(head) != string(gzipMagic) {
		in.r = in.br
		return nil
	}
	zr, err := gzip.NewReader(in.br) // multistream: --record appends a member per run
	if err != nil {
		return fmt.Errorf("reading a gzip'd trace: %w", err)
	}
	in.r, in.gzipped = zr, true
	return nil
}

// Cut says where the gzip'd trace ended early or was damaged, or nil.
func (in *Input) Cut() error {
	if in.cut == nil {
		return nil
	}
	return &CutError{Err: in.cut}
}

// isCut reports whether err is a gzip'd trace's cut.
func isCut(err error) bool {
	var ce *CutError
	return errors.As(err, &ce)
}
