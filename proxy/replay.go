package proxy

import (
	"context"
	"io"
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
)

// Replay runs the lines of a recorded trace through chain, both directions
// in recorded order, and writes what each side would have received as a new
// trace to w (nil: nowhere, e.g. when only a summary is wanted). Coalescing
// timers run on the recorded clock, so a replay is deterministic.
//
// Records without a received line (lines the recording proxy added) are
// skipped: the chain adds its own. What the recording's filters read from
// the disk ("read" records) answers the chain's filters (see TraceDisk),
// and is copied to w.
func Replay(ctx context.Context, chain *filters.Chain, tr *TraceReader, w io.Writer, sum *Summary) error {
	var epoch time.Time // the recorded clock: t is relative to it
	out := NewRecorder(discardIfNil(w), epoch)
	var next [2]time.Time // when each direction's timed filters want to run
	emitAt := func(at time.Time) filters.Sink {
		return func(d filters.Direction, raw []byte, _ bool) error {
			sum.after(d, raw)
			out.emitted(at, d, raw)
			return nil
		}
	}
	// fire runs due timers of both directions, earliest first, up to now.
	fire := func(now time.Time) error {
		for {
			d := filters.ClientToAgent
			if next[d].IsZero() || (!next[1-d].IsZero() && next[1-d].Before(next[d])) {
				d = 1 - d
			}
			at := next[d]
			if at.IsZero() || at.After(now) {
				return nil
			}
			n, err := chain.Tick(ctx, d, at, emitAt(at))
			if err != nil {
				return err
			}
			if !n.After(at) && !n.IsZero() {
				n = at.Add(time.Microsecond) // a filter must not spin the clock
			}
			next[d] = n
		}
	}
	disk := traceDisk(chain)
	var last time.Time
	for rec, err := range tr.All() {
		if err != nil {
			return err
		}
		if !rec.HasLine && rec.Read == nil {
			continue
		}
		now := epoch.Add(rec.T)
		if now.Before(last) {
			now = last // a hand-edited trace may go back in time; order wins
		}
		last = now
		if rec.Read != nil {
			// What a filter read, for the filters of this replay
			// (a timer due now may ask) and of a replay of its output.
			disk.add(*rec.Read)
		}
		if err := fire(now); err != nil {
			return err
		}
		if rec.Read != nil {
			out.read(now, rec.Dir, *rec.Read)
			continue
		}
		sum.before(rec.Dir, rec.Line)
		m := filters.NewMessage(rec.Dir, rec.Line, now, nil)
		sink := emitAt(now)
		if err := chain.Process(ctx, m, func(d filters.Direction, raw []byte, original bool) error {
			if original && !rec.EOL {
				sum.after(d, raw)
				out.emittedNoEOL(now, d, raw)
				return nil
			}
			return sink(d, raw, original)
		}); err != nil {
			return err
		}
		if chain.Len() > 0 {
			n, err := chain.Tick(ctx, rec.Dir, now, sink)
			if err != nil {
				return err
			}
			next[rec.Dir] = n
		}
	}
	// The streams end at the last record: what is held is due then.
	if err := fire(last); err != nil {
		return err
	}
	for _, d := range []filters.Direction{filters.ClientToAgent, filters.AgentToClient} {
		if err := chain.Drain(ctx, d, last, emitAt(last)); err != nil {
			return err
		}
	}
	return out.Flush()
}

// traceDisk is the chain's Disk for a replay: the trace's answers (a
// TraceDisk the caller set, to hear of what the trace lacks, or a new one).
func traceDisk(chain *filters.Chain) *TraceDisk {
	if chain == nil {
		return &TraceDisk{}
	}
	disk, ok := chain.Disk.(*TraceDisk)
	if !ok {
		disk = &TraceDisk{}
		chain.Disk = disk
	}
	return disk
}

func discardIfNil(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
