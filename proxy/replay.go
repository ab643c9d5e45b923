package proxy

import (
	"bytes"
	"context"
	"io"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Connection is what a replay runs one connection of a trace through: its
// own chain (nil: no filters) and the summary that counts it (nil: none).
type Connection struct {
	Chain   *filters.Chain
	Summary *Summary
}

// Replay runs the lines of a recorded trace through chain, both directions
// in recorded order, and writes what each side would have received as a new
// trace to w (nil: nowhere, e.g. when only a summary is wanted). Coalescing
// timers run on the recorded clock, so a replay is deterministic. Every
// connection of the trace goes through the same chain; ReplayConnections
// gives each its own.
func Replay(ctx context.Context, chain *filters.Chain, tr *TraceReader, w io.Writer, sum *Summary) error {
	return ReplayConnections(ctx, tr, w, func(int) Connection { return Connection{chain, sum} })
}

// ReplayConnections is Replay for a trace of one or more connections
// (--record appends, so one file may hold many proxy runs): each starts with
// a "connection" record, or, in a trace recorded before those, with the
// client's initialize request, and is replayed on its own clock through the
// Connection newConn returns for it (numbered from 0), after what the one
// before held is drained. A "connection" record is copied to w.
//
// Records without a received line (lines the recording proxy added) are
// skipped: the chain adds its own. What the recording's filters read from
// the disk ("read" records) answers the chain's filters (see TraceDisk),
// and is copied to w.
func ReplayConnections(ctx context.Context, tr *TraceReader, w io.Writer, newConn func(n int) Connection) error {
	return ReplayWith(ctx, tr, w, ReplayOptions{NewConn: newConn})
}

// ReplayOptions say how ReplayWith replays.
type ReplayOptions struct {
	// NewConn returns what connection n (from 0) is replayed through.
	NewConn func(n int) Connection
	// Sources marks each delivered line with the received line it was made
	// from ("src": its number, from 0 over the trace's lines; "timer":
	// released by a timer after it), so that a reader pairs each message
	// with what the filters made of it (acp-proxy view does).
	Sources bool
}

// ReplayWith is ReplayConnections with options.
func ReplayWith(_ context.Context, tr *TraceReader, w io.Writer, opt ReplayOptions) error {
	var epoch time.Time // the recorded clock: t is relative to it
	rp := &replayer{out: NewRecorder(discardIfNil(w), epoch), newConn: opt.NewConn, sources: opt.Sources, line: -1}
	rp.begin()
	var split Connections
	for rec, err := range tr.All() {
		if err != nil {
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
	if err := rp.end(); err != nil {
		return err
	}
	return rp.out.Flush()
}

// replayer is the state of a replay: the connection being replayed.
type replayer struct {
	out     *Recorder
	newConn func(int) Connection

	n    int // connections begun
	conn Connection
	// sources: mark delivered lines with the received line they came
	// from (line; or released by a timer after it).
	sources bool
	line    int
	disk    *TraceDisk
	clock   *filters.ManualClock // the recorded clock
	driver  *filters.Driver
}

func (rp *replayer) begin() {
	rp.conn = rp.newConn(rp.n)
	rp.n++
	rp.disk = traceDisk(rp.conn.Chain)
	rp.clock = filters.NewManualClock(time.Time{})
	rp.driver = filters.NewDriver(rp.conn.Chain, rp.clock, rp.released)
}

// Connections tells the connections of a trace apart, one record at a
// time: each starts with a "connection" record, or, in a trace recorded
// before those, with the client's initialize request.
type Connections struct {
	n           int
	started     bool // the connection has a line or a "connection" record
	initialized bool // the connection has had its initialize request
}

// Starts reports whether rec begins a connection: the first record that
// has a line or is a "connection" record, and every one after it that
// begins another.
func (c *Connections) Starts(rec TraceRecord) bool {
	init := isInitialize(rec)
	starts := c.n == 0 && (rec.HasLine || rec.Conn != nil) || c.started && (rec.Conn != nil || c.initialized && init)
	if starts {
		c.n++
		c.started, c.initialized = false, false
	}
	c.started = c.started || rec.HasLine || rec.Conn != nil
	c.initialized = c.initialized || init
	return starts
}

// N is the number of connections begun so far.
func (c *Connections) N() int { return c.n }

// isInitialize reports whether rec is the client's initialize request.
func isInitialize(rec TraceRecord) bool {
	if rec.Dir != acp.ClientToAgent || !rec.HasLine || !bytes.Contains(rec.Line, []byte(`"initialize"`)) {
		return false
	}
	m, _ := rawjson.GetString(rec.Line, "method")
	_, hasID := rawjson.Get(rec.Line, "id")
	return m == "initialize" && hasID
}

// released takes what the filters emit on their own (due, or drained),
// at the recorded clock's time.
func (rp *replayer) released(l filters.Line) error {
	rp.conn.Summary.after(l.Dir, l.Raw)
	rp.out.emittedFrom(rp.clock.Now(), l.Dir, l.Raw, true, rp.source(true))
	return nil
}

// source is what a line delivered now was made from, when marked: the
// received line, or a timer after it.
func (rp *replayer) source(timer bool) *lineSource {
	if !rp.sources || rp.line < 0 {
		return nil
	}
	return &lineSource{line: rp.line, timer: timer}
}

// record replays one record, recorded at at.
func (rp *replayer) record(at time.Time, rec TraceRecord) error {
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
	switch {
	case rec.Conn != nil:
		rp.conn.Summary.started(rec.Conn)
		rp.out.connection(now, rec.Conn)
		return nil
	case rec.Read != nil:
		rp.out.read(now, rec.Dir, *rec.Read)
		return nil
	}
	sum := rp.conn.Summary
	rp.line++
	sum.at(rec.T)
	sum.before(rec.Dir, rec.Line)
	m := filters.NewMessage(rec.Dir, rec.Line, now, nil)
	if err := rp.driver.Process(m, func(l filters.Line) error {
		sum.after(l.Dir, l.Raw)
		// The untouched line keeps its own ending.
		rp.out.emittedFrom(now, l.Dir, l.Raw, rec.EOL || !l.Original, rp.source(false))
		return nil
	}); err != nil {
		return err
	}
	return rp.driver.Tick(rec.Dir) // what is due now was held
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
	}
	return nil
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
