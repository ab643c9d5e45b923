package trace

import (
	"context"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// Sink is what a replay hands a connection to: each record of the trace as
// it is replayed (Record), and, as the relay tells its taps, each received
// line with what the chain wrote for it, and the lines the chain wrote on
// its own. The output trace (Delivered), the figures of --summary (Summary)
// and the view are sinks.
type Sink interface {
	proxy.Tap
	// Record is called for every record of the connection, at now on the
	// replay's clock, before the chain sees its line (if it has one).
	Record(now time.Time, rec Record)
}

// Connection is what a replay runs one connection of a trace through: its
// own chain (nil: no filters) and the sinks it hands what happens to.
type Connection struct {
	Chain *filters.Chain
	Sinks []Sink
}

// Replay runs the lines of a recorded trace through a filter chain, both
// directions in recorded order, as the relay would have. Coalescing timers
// run on the recorded clock, so a replay is deterministic.
//
// A trace holds one or more connections (--record appends, so one file may
// hold many proxy runs): each starts with a "connection" record, or, in a
// trace recorded before those, with the client's initialize request, and is
// replayed on its own clock through the Connection newConn returns for it
// (numbered from 0), after what the one before held is drained.
//
// Records without a received line (lines the recording proxy added) are
// skipped: the chain adds its own. What the recording's filters read from
// the disk ("read" records) answers the chain's filters (see Disk).
func Replay(ctx context.Context, tr *Reader, newConn func(n int) Connection) error {
	rp := &replayer{ctx: ctx, newConn: newConn}
	rp.begin()
	var split Connections
	var epoch time.Time // the recorded clock: t is relative to it
	for rec, err := range tr.All() {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if split.Starts(rec) && split.N() > rp.n {
			if err := rp.end(); err != nil {
				return err
			}
			rp.begin()
		}
		if !rec.HasLine && rec.Read == nil && rec.Conn == nil {
			continue
		}
		if err := rp.record(epoch.Add(rec.T), rec); err != nil {
			return err
		}
	}
	return rp.end()
}

// replayer is the state of a replay: the connection being replayed.
type replayer struct {
	ctx     context.Context
	newConn func(int) Connection

	n       int // connections begun
	conn    Connection
	disk    *Disk
	next    [2]time.Time // when each direction's timed filters want to run
	last    time.Time
	passage proxy.Passage
}

func (rp *replayer) begin() {
	rp.conn = rp.newConn(rp.n)
	rp.n++
	rp.disk = replayDisk(rp.conn.Chain)
	rp.next, rp.last = [2]time.Time{}, time.Time{}
}

// record replays one record at now.
func (rp *replayer) record(now time.Time, rec Record) error {
	if now.Before(rp.last) {
		now = rp.last // a hand-edited trace may go back in time; order wins
	}
	rp.last = now
	if rec.Read != nil {
		// What a filter read, for the filters of this replay
		// (a timer due now may ask) and of a replay of its output.
		rp.disk.add(*rec.Read)
	}
	if err := rp.fire(now); err != nil {
		return err
	}
	for _, s := range rp.conn.Sinks {
		s.Record(now, rec)
	}
	if !rec.HasLine {
		return nil
	}
	if err := rp.pass(now, rec); err != nil {
		return err
	}
	if rp.conn.Chain.Len() > 0 {
		n, err := rp.conn.Chain.Tick(rp.ctx, rec.Dir, now, rp.added(now, true))
		if err != nil {
			return err
		}
		rp.next[rec.Dir] = n
	}
	return nil
}

// pass runs a received line through the chain and tells the sinks what it
// wrote for it.
func (rp *replayer) pass(now time.Time, rec Record) error {
	p := &rp.passage
	*p = proxy.Passage{Dir: rec.Dir, Time: now, Line: rec.Line, EOL: rec.EOL, Out: p.Out[:0]}
	m := filters.NewMessage(rec.Dir, rec.Line, now, nil)
	other := rp.added(now, false)
	err := rp.conn.Chain.Process(rp.ctx, m, func(d acp.Direction, raw []byte, original bool) error {
		if d != rec.Dir {
			return other(d, raw, original)
		}
		if !original {
			raw = append([]byte(nil), raw...)
		}
		p.Out = append(p.Out, proxy.Sent{Line: raw, Original: original})
		return nil
	})
	p.Valid = rec.JSON
	for _, s := range rp.conn.Sinks {
		s.Passed(p)
	}
	return err
}

// added is the chain's sink for lines it writes on its own at at: timed,
// released by a timer or the end.
func (rp *replayer) added(at time.Time, timed bool) filters.Sink {
	return func(d acp.Direction, raw []byte, _ bool) error {
		for _, s := range rp.conn.Sinks {
			s.Added(d, at, raw, timed)
		}
		return nil
	}
}

// fire runs due timers of both directions, earliest first, up to now.
func (rp *replayer) fire(now time.Time) error {
	for {
		d := acp.ClientToAgent
		if rp.next[d].IsZero() || (!rp.next[1-d].IsZero() && rp.next[1-d].Before(rp.next[d])) {
			d = 1 - d
		}
		at := rp.next[d]
		if at.IsZero() || at.After(now) {
			return nil
		}
		n, err := rp.conn.Chain.Tick(rp.ctx, d, at, rp.added(at, true))
		if err != nil {
			return err
		}
		if !n.After(at) && !n.IsZero() {
			n = at.Add(time.Microsecond) // a filter must not spin the clock
		}
		rp.next[d] = n
	}
}

// end ends the connection's streams at its last record: what is held is
// due then.
func (rp *replayer) end() error {
	if err := rp.fire(rp.last); err != nil {
		return err
	}
	for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		if err := rp.conn.Chain.Drain(rp.ctx, d, rp.last, rp.added(rp.last, true)); err != nil {
			return err
		}
		for _, s := range rp.conn.Sinks {
			if err := s.End(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// replayDisk is the chain's Disk for a replay: the trace's answers (a
// Disk the caller set, to hear of what the trace lacks, or a new one).
func replayDisk(chain *filters.Chain) *Disk {
	if chain == nil {
		return &Disk{}
	}
	disk, ok := chain.Disk.(*Disk)
	if !ok {
		disk = &Disk{}
		chain.Disk = disk
	}
	return disk
}
