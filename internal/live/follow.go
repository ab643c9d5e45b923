package live

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// pollInterval is how often a follower looks for more of the trace.
const pollInterval = 100 * time.Millisecond

// Relay serves the live page, titled title, of a relay's session: the
// returned tap is to be added to the relay's taps. filters name the
// relay's filters by their flags; start and info are as for NewTap.
func (s *Server) Relay(title string, filters []string, start time.Time, info trace.ConnectionInfo) *Tap {
	tap := NewTap(start, info, s.budget)
	s.serve(newPage(title, filters, tap.q, s.Log))
	return tap
}

// Follow serves the live page, titled title, of the trace in r, read from
// its start and then as another proxy appends to it, until ctx is done
// (nil) or the trace is malformed (the error). A gzip'd trace (--record
// FILE.gz) is followed too (see followed).
func (s *Server) Follow(ctx context.Context, r io.Reader, title string) error {
	q := newQueue(DefaultBudget, true)
	s.serve(newPage(title, nil, q, s.Log))
	tr := trace.NewReader(followed(&follower{r: r, ctx: ctx}))
	for {
		rec, err := tr.Next()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		size := int64(len(rec.Line) + len(rec.Conn))
		for _, o := range rec.Out {
			size += int64(len(o))
		}
		q.put(rec, nil, size)
	}
}

// follower reads a file that another process appends to: at its end, it
// waits for more instead of returning io.EOF, until ctx is done.
type follower struct {
	r   io.Reader
	ctx context.Context
}

func (f *follower) Read(b []byte) (int, error) {
	for {
		n, err := f.r.Read(b)
		if n > 0 || err != nil && err != io.EOF {
			return n, err
		}
		select {
		case <-f.ctx.Done():
			return 0, io.EOF
		case <-time.After(pollInterval):
		}
	}
}

// followed is the trace a follower reads, decompressed when it is gzip'd
// (its first two bytes say). --record FILE.gz writes one whole gzip member
// per flush: each is read on its own, so that its records are shown as soon
// as it is whole, not when the next member's header arrives (which a
// multistream reader waits for at a member's end, beneath it the follower
// waiting on the file).
func followed(f *follower) io.Reader {
	br := bufio.NewReader(f)
	if magic, err := br.Peek(2); err != nil || !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return br
	}
	return &gzipMembers{br: br}
}

// gzipMembers reads a stream of gzip members one at a time.
type gzipMembers struct {
	br *bufio.Reader
	z  *gzip.Reader // the member being read; nil between members
}

func (m *gzipMembers) Read(p []byte) (int, error) {
	for {
		if m.z == nil {
			z, err := gzip.NewReader(m.br)
			if err != nil {
				return 0, err
			}
			z.Multistream(false)
			m.z = z
		}
		n, err := m.z.Read(p)
		if err != io.EOF {
			return n, err
		}
		m.z = nil // this member is whole: the next one may not be written yet
		if n > 0 {
			return n, nil
		}
	}
}
