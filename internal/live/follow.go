package live

import (
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
	s.serve(newPage(title, filters, tap.q))
	return tap
}

// Follow serves the live page, titled title, of the trace in r, read from
// its start and then as another proxy appends to it, until ctx is done
// (nil) or the trace is malformed (the error).
func (s *Server) Follow(ctx context.Context, r io.Reader, title string) error {
	q := newQueue(DefaultBudget, true)
	s.serve(newPage(title, nil, q))
	tr := trace.NewReader(&follower{r: r, ctx: ctx})
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
