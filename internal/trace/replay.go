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
// run on the recorded clock, so a replay is deterministic. It stops before
// the next record, with ctx's error, once ctx is done.
//
// A trace holds one or more connections (--record appends, so one file may
// hold many proxy runs): each starts with a "connection" record, or, in a
// trace recorded before those, with the client's initialize request, and is
// replayed on its own clock through the Connection newConn returns for it
// (numbered from 0), after what the one before held is drained.
//
// Records without a received line (lines the recording proxy added, its
// filters' notes) go to the sinks' Record only: the chain adds its own, and
// its notes go to the sinks that take them (NoteSink); so do the records of
// held lines leaving (the chain sends on what it holds). What the recording's filters read from
// the disk ("read" records) answers the chain's filters (see Disk).
func Replay(ctx context.Context, tr *Reader, newConn func(n int) Connection) error {
	rp := &replayer{newConn: newConn}
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
		if !rec.HasLine && !rec.HasOut && rec.Read == nil && rec.Conn == nil && rec.Note == nil {
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
	newConn func(int) Connection
	noting  map[*filters.Chain]bool // the chains whose notes go to the sinks

	n       int // connections begun
	conn    Connection
	disk    *Disk
	clock   *filters.ManualClock // the recorded clock
	driver  *filters.Driver
	passage proxy.Passage
}

func (rp *replayer) begin() {
	rp.conn = rp.newConn(rp.n)
	rp.n++
	rp.disk = replayDisk(rp.conn.Chain)
	if c := rp.conn.Chain; c.Audits() && !rp.noting[c] {
		if rp.noting == nil {
			rp.noting = map[*filters.Chain]bool{}
		}
		rp.noting[c] = true
		c.ListenNotes(rp.note)
	}
	rp.clock = filters.NewManualClock(time.Time{})
	rp.driver = filters.NewDriver(rp.conn.Chain, rp.clock, rp.released)
}

// record replays one record, recorded at at.
func (rp *replayer) record(at time.Time, rec Record) error {
	if rec.Read != nil {
		// What a filter read, for the filters of this replay
		// (a timer due now may ask) and of a replay of its output.
		rp.disk.add(*rec.Read)
	}
	// A hand-edited trace may go back in time: the clock does not, order wins.
	if err := rp.clock.Advance(at); err != nil {
		return err
	}
	now := rp.clock.Now()
	for _, s := range rp.conn.Sinks {
		s.Record(now, rec)
	}
	if !rec.HasLine && rec.Read != nil {
		// A filter waiting for this answer (a report made beside the
		// relay, --show-changes) sends what it waited for.
		return rp.driver.Tick(rec.Dir)
	}
	if !rec.HasLine || rec.Released {
		return nil // the chain adds its own lines, and sends on what it holds
	}
	if err := rp.pass(now, rec); err != nil {
		return err
	}
	return rp.driver.Tick(rec.Dir) // what is due now was held
}

// pass runs a received line through the chain and tells the sinks what it
// wrote for it.
func (rp *replayer) pass(now time.Time, rec Record) error {
	p := &rp.passage
	*p = proxy.Passage{Dir: rec.Dir, Time: now, Line: rec.Line, EOL: rec.EOL, Valid: rec.JSON, Out: p.Out[:0]}
	m := filters.NewMessage(rec.Dir, rec.Line, now, nil)
	m.NoEOL = !rec.EOL
	err := rp.driver.Process(m, func(l filters.Line) error {
		if l.Held != nil {
			rp.release(now, l)
			return nil
		}
		if l.Dir != rec.Dir {
			rp.added(now, l, false)
			return nil
		}
		kept := l.Raw
		if !l.Original {
			kept = append([]byte(nil), l.Raw...) // a filter may reuse its buffer
		}
		p.Out = append(p.Out, proxy.Sent{Line: kept, Original: l.Original})
		return nil
	})
	p.Held = m.Held()
	for _, s := range rp.conn.Sinks {
		s.Passed(p)
	}
	return err
}

// NoteSink is a sink that takes the notes of the replay's chain (see
// Recorder.Note): Delivered writes the decisions into the replay's output.
type NoteSink interface {
	Note(filters.Note)
}

// note hands a note of the chain to the sinks that take notes.
func (rp *replayer) note(n filters.Note) {
	for _, s := range rp.conn.Sinks {
		if ns, ok := s.(NoteSink); ok {
			ns.Note(n)
		}
	}
}

// released takes what the filters emit on their own (due, or drained), at
// the recorded clock's time.
func (rp *replayer) released(l filters.Line) error {
	if l.Held != nil {
		rp.release(rp.clock.Now(), l)
		return nil
	}
	rp.added(rp.clock.Now(), l, true)
	return nil
}

// release tells the sinks that a held line left at t, unchanged or
// changed, as the relay tells its taps.
func (rp *replayer) release(t time.Time, l filters.Line) {
	p := proxy.ReleasePassage(l, t)
	for _, s := range rp.conn.Sinks {
		s.Released(p)
	}
}

// added tells the sinks of a line the chain wrote on its own at t: timed,
// released by a timer or the end.
func (rp *replayer) added(t time.Time, l filters.Line, timed bool) {
	for _, s := range rp.conn.Sinks {
		s.Added(l.Dir, t, l.Raw, timed)
	}
}

// end ends the connection's streams at its last record: what is held is
// due then.
func (rp *replayer) end() error {
	if err := rp.clock.Advance(rp.clock.Now()); err != nil {
		return err
	}
	for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		if err := rp.driver.Drain(d); err != nil {
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
