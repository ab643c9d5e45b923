package proxy

import (
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// DefaultMaxFilterLine is the longest line filters see. Longer lines are
// streamed through unfiltered in pieces, so memory stays bounded; the
// largest ACP lines seen from real agents are about 1.3 MB.
const DefaultMaxFilterLine = 16 << 20

const ioBufferSize = 64 << 10

// Relay is the configuration of a proxied connection. The zero value relays
// byte for byte.
type Relay struct {
	Chain         *filters.Chain   // nil: no filters
	Log           *slog.Logger     // nil: no logs
	MaxFilterLine int              // 0: DefaultMaxFilterLine
	Now           func() time.Time // nil: time.Now
	// Taps watch the lines at the edges of the chain (a trace, --stats);
	// nil: none.
	Taps []Tap
}

// Conn is one running connection: the two writers that every line of a
// direction must go through, and the pumps that feed them.
type Conn struct {
	r       *Relay
	writers [2]*lineWriter // indexed by the direction the lines travel
	driver  *filters.Driver
	taps    []*watcher   // the relay's taps, each behind its fuse
	passed  [2]Passage   // each direction's, reused line after line
	ended   atomic.Int32 // directions whose Pump has ended
	// runs: a filter reads the direction (filters.Chain.Runs); the lines
	// of one none reads pass as without filters.
	runs [2]bool
	held [2]heldOrder // each direction's held lines, told in order
	// skipped: each direction's lines that skipped the chain and are not
	// yet written (see skippedRun).
	skipped [2]skippedRun
	// chunksHeld: a filter would not skip a text chunk of the direction
	// (filters.Chain.SkipsChunks), asked since its last read and since a
	// line last went through the chain; its chunks go one by one.
	chunksHeld [2]bool
}

// skippedRun is a run of lines every filter skipped (filters.Chain.Skips),
// one after the other in the framer's buffer, written in one write rather
// than one each. Nothing can come between them: a line that skips cannot
// change what a filter holds or keeps, and a filter that holds output does
// not skip (so no timer has anything to release meanwhile); the run is
// written before any other line of its pump, before the pump flushes, and
// before the framer refills the buffer the run points into.
type skippedRun struct {
	wire  []byte    // the lines with their '\n's, as read
	lines [][]byte  // each line, for the taps (only when there are taps)
	now   time.Time // when they were read
}

// Open starts a connection whose client→agent lines are written to toAgent
// and agent→client lines to toClient.
func (r *Relay) Open(toAgent, toClient io.Writer) *Conn {
	c := &Conn{r: r, taps: newWatchers(r.Taps, r.log()), runs: [2]bool{r.Chain.Runs(acp.ClientToAgent), r.Chain.Runs(acp.AgentToClient)}}
	c.writers[acp.ClientToAgent] = newLineWriter(toAgent, ioBufferSize)
	c.writers[acp.AgentToClient] = newLineWriter(toClient, ioBufferSize)
	clock := filters.NewTimerClock(r.now)
	clock.OnError = func(d acp.Direction, err error) {
		r.log().Warn("timed flush failed", "dir", d.String(), "err", err)
	}
	c.driver = filters.NewDriver(r.Chain, clock, c.sink)
	return c
}

func (r *Relay) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Relay) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Pump relays direction d from src until src ends, then flushes what the
// filters still hold. It returns nil at a clean end of src, or the error
// that stopped it (wrapped with the direction).
func (c *Conn) Pump(d acp.Direction, src io.Reader) error {
	w := c.writers[d]
	var err error
	if c.r.Chain.Len() == 0 && len(c.taps) == 0 {
		err = c.copy(d, src, w)
	} else {
		err = c.pump(d, c.framer(d, src), w)
		if werr := c.writeSkipped(d); err == nil {
			err = werr
		}
	}
	c.driver.Stop(d)
	if derr := c.driver.Drain(d); err == nil && derr != nil {
		err = derr
	}
	if ferr := w.flush(); err == nil && ferr != nil {
		err = fmt.Errorf("%s: write: %w", d, ferr)
	}
	if c.ended.Add(1) == 2 {
		c.driver.Close() // both directions drained: the filters let go of what they hold
	}
	for _, t := range c.taps {
		if terr := t.end(d); terr != nil {
			c.r.log().Warn("tap failed; what it records is incomplete", "dir", d.String(), "err", terr)
		}
	}
	return err
}

// framer frames direction d's lines for the pump.
func (c *Conn) framer(d acp.Direction, src io.Reader) *framer {
	max := c.r.MaxFilterLine
	if max <= 0 {
		max = DefaultMaxFilterLine
	}
	if !c.runs[d] && len(c.taps) == 0 {
		// Nobody needs a whole line: stream every line longer than
		// the read buffer straight through, without assembling it.
		max = 1
	}
	f := newFramer(src, ioBufferSize, max)
	f.beforeFill = func() error { return c.writeSkipped(d) }
	return f
}

// copy relays direction d as a byte-copying loop does: with no filter and
// no tap, nothing reads the lines and nobody else writes to d's side (only
// a filter adds lines), so the bytes need no framing. Each read's bytes
// leave at once, whole lines or not, as the peer would have sent them
// without the proxy.
func (c *Conn) copy(d acp.Direction, src io.Reader, w *lineWriter) error {
	buf := make([]byte, ioBufferSize)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if werr := w.writeThrough(buf[:n]); werr != nil {
				return fmt.Errorf("%s: write: %w", d, werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: read: %w", d, err)
		}
	}
}

// lineClock is the time of the source's last read, read from the relay's
// clock when first asked for after that read: reading it costs as much as
// relaying a short line, and a line that skips the chain, with no tap to
// tell, needs no time at all. A line that was whole in what an earlier
// read brought arrived then.
type lineClock struct {
	read  func() time.Time
	now   time.Time
	fresh bool // now is the time of the last read
}

// at returns the time of the last read.
func (lc *lineClock) at() time.Time {
	if !lc.fresh {
		lc.now, lc.fresh = lc.read(), true
	}
	return lc.now
}

func (c *Conn) pump(d acp.Direction, f *framer, w *lineWriter) error {
	timed := c.runs[d]
	clock := lineClock{read: c.r.now}
	for {
		if c.passChunks(d, f, clock.now) {
			if !f.buffered() {
				if err := c.flush(d, w); err != nil {
					return err
				}
			}
			continue
		}
		reads := f.reads()
		ln, err := f.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: read: %w", d, err)
		}
		if f.reads() != reads {
			c.chunksHeld[d] = false
			clock.fresh = false
		}
		filtered := timed
		if ln.more {
			ln.terminated, err = c.passLong(d, f, w, ln)
		} else {
			filtered, err = c.process(d, ln, &clock)
		}
		if err != nil {
			return err
		}
		// What the filters hold becomes due on the clock's timer too: a
		// line that skipped them does not make them look.
		if filtered {
			c.chunksHeld[d] = false
			if err := c.driver.Tick(d); err != nil {
				return err
			}
		}
		// Flush only when no more input is waiting: lines leave at once
		// when the peer is idle and in batches under load.
		if !f.buffered() {
			if err := c.flush(d, w); err != nil {
				return err
			}
		}
		if !ln.terminated {
			return nil
		}
	}
}

// flush writes d's run of skipped lines and what w holds.
func (c *Conn) flush(d acp.Direction, w *lineWriter) error {
	if err := c.writeSkipped(d); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return fmt.Errorf("%s: write: %w", d, err)
	}
	return nil
}

// process runs one whole line through the chain, unless it skips it
// (filters.Chain.Skips), and tells the taps. It reports whether the chain
// ran.
func (c *Conn) process(d acp.Direction, ln line, clock *lineClock) (filtered bool, err error) {
	filtered = c.runs[d] && !c.r.Chain.Skips(d, ln.bytes)
	var now time.Time // the filters' and the taps' only
	if filtered || len(c.taps) > 0 {
		now = clock.at()
	}
	if !filtered && !c.runs[d] && c.r.Chain != nil {
		c.r.Chain.Observe(acp.NewMessage(d, ln.bytes, now))
	}
	if !filtered && ln.wire != nil {
		c.skip(d, ln, now)
		return false, nil
	}
	if err := c.writeSkipped(d); err != nil {
		return filtered, err
	}
	var p *Passage
	if len(c.taps) > 0 {
		p = &c.passed[d]
		*p = Passage{Dir: d, Time: now, Line: ln.bytes, EOL: ln.terminated, Out: p.Out[:0]}
	}
	if !filtered {
		err = c.write(d, ln.bytes, ln.terminated) // a line assembled beyond the buffer, or the last
		if p != nil {
			p.Out = append(p.Out, Sent{Line: ln.bytes, Original: true})
		}
	} else {
		err = c.filter(d, ln, now, p)
	}
	if p != nil && p.Held {
		c.held[d].pass(c.taps, p)
		return filtered, err
	}
	for _, t := range c.taps {
		t.passed(p)
	}
	return filtered, err
}

// skip adds a line that skipped the chain to d's run of them.
func (c *Conn) skip(d acp.Direction, ln line, now time.Time) {
	r := c.joinRun(d, ln.wire, now)
	r.extend(ln.wire)
	if len(c.taps) > 0 {
		r.lines = append(r.lines, ln.bytes)
	}
}

// joinRun returns d's run of skipped lines, ready for the lines that start
// at next, read at now: the run so far is written first when they are not
// the next bytes of the same read. (The framer writes the run before it
// refills its buffer, so that is only a safeguard.)
func (c *Conn) joinRun(d acp.Direction, next []byte, now time.Time) *skippedRun {
	r := &c.skipped[d]
	if len(r.wire) > 0 && (!r.now.Equal(now) || !follows(r.wire, next)) {
		_ = c.writeSkipped(d) // an error is the writer's, returned again by the next write
	}
	if len(r.wire) == 0 {
		r.now = now
	}
	return r
}

// extend adds wire, the bytes that follow the run's, to the run.
func (r *skippedRun) extend(wire []byte) {
	if len(r.wire) == 0 {
		r.wire = wire
	} else {
		r.wire = r.wire[:len(r.wire)+len(wire)]
	}
}

// follows reports whether next starts where run ends, in the same array.
func follows(run, next []byte) bool {
	return cap(run)-len(run) >= len(next) && cap(run)-len(run) == cap(next) &&
		len(next) > 0 && &run[:len(run)+1][len(run)] == &next[0]
}

// writeSkipped writes d's run of skipped lines in one write, then tells
// the taps of each line, as process does of a line it wrote.
func (c *Conn) writeSkipped(d acp.Direction) error {
	r := &c.skipped[d]
	if len(r.wire) == 0 {
		return nil
	}
	err := c.writers[d].writeRun(r.wire)
	if err != nil {
		err = fmt.Errorf("%s: write: %w", d, err)
	}
	for _, t := range c.taps {
		t.passedRun(d, r.now, r.lines, &c.passed[d])
	}
	r.wire, r.lines = nil, r.lines[:0]
	return err
}

// filter writes what the chain makes of a line, and notes it in p (nil: no
// taps).
func (c *Conn) filter(d acp.Direction, ln line, now time.Time, p *Passage) error {
	m := filters.NewMessage(d, ln.bytes, now, nil)
	m.NoEOL = !ln.terminated
	m.Give = ln.give
	err := c.driver.Process(m, func(l filters.Line) error {
		if l.Held != nil {
			return c.release(l, now, false)
		}
		if l.Dir != d {
			return c.sinkOther(l.Dir, l.Raw, now, false)
		}
		if p != nil {
			kept := l.Raw
			if !l.Original {
				kept = append([]byte(nil), l.Raw...) // a filter may reuse its buffer
			}
			p.Out = append(p.Out, Sent{Line: kept, Original: l.Original})
		}
		if l.Original && ln.wire != nil {
			return c.write(d, ln.wire, false) // the line and its '\n' as read
		}
		// Only the untouched line keeps its own ending; a filter's line
		// is a whole message.
		return c.write(l.Dir, l.Raw, ln.terminated || !l.Original)
	})
	if p != nil {
		p.Held = m.Held()
	}
	if p != nil && m.Looked() {
		// Only what a filter read already: a tap that needs to know
		// checks a line nobody looked at itself (the recorder does), and
		// one that does not (OpenTelemetry's) costs the pump no walk.
		p.Valid = m.Checked()
	}
	return err
}

// passLong streams a line too long to filter straight through, and reports
// whether it ended in '\n'. The chain first emits what it holds, so nothing
// it held back is overtaken.
//
// Between two pieces the pump waits for its peer, maybe for long, holding
// nothing: not the writer (lines others write meanwhile follow the long
// line) and not the trace (the line's record is spooled and joins the trace
// at its end). The other direction never waits for this peer.
func (c *Conn) passLong(d acp.Direction, f *framer, w *lineWriter, ln line) (bool, error) {
	if c.runs[d] {
		c.r.log().Info("line too long to filter; streamed through", "dir", d.String(), "max", c.r.MaxFilterLine)
		if err := c.driver.Drain(d); err != nil {
			return false, err
		}
	}
	taps := make([]*watchedLong, len(c.taps))
	for i, t := range c.taps {
		taps[i] = t.long(d)
	}
	w.beginLong()
	var err error
	for {
		for _, t := range taps {
			t.piece(ln.bytes)
		}
		if err = w.writePiece(ln.bytes); err != nil {
			err = fmt.Errorf("%s: write: %w", d, err)
			break
		}
		if !ln.more {
			break
		}
		// What arrived leaves before the pump waits for more.
		if !f.buffered() {
			if err = w.flush(); err != nil {
				err = fmt.Errorf("%s: write: %w", d, err)
				break
			}
		}
		if ln, err = f.piece(); err != nil {
			err = fmt.Errorf("%s: read: %w", d, err)
			break
		}
	}
	eol := err == nil && ln.terminated
	if len(taps) > 0 {
		end := c.r.now()
		for _, t := range taps {
			t.end(end, eol)
		}
	}
	if eerr := w.endLong(eol); err == nil && eerr != nil {
		err = fmt.Errorf("%s: write: %w", d, eerr)
	}
	return eol, err
}

func (c *Conn) write(d acp.Direction, b []byte, eol bool) error {
	if err := c.writers[d].writeLine(b, eol); err != nil {
		return fmt.Errorf("%s: write: %w", d, err)
	}
	return nil
}

// sink takes lines the chain emits outside of a read line: timers and drains.
func (c *Conn) sink(l filters.Line) error {
	if l.Held != nil {
		return c.release(l, c.r.now(), true)
	}
	return c.sinkOther(l.Dir, l.Raw, c.r.now(), true)
}

// release writes the release of a line a filter held back when it
// arrived: the line as read, with its own ending, or, changed, the line in
// its place; the taps are told the line read passed, late (Tap.Released).
// flush: the pump of its direction may be idle (a timer or a drain
// released it).
func (c *Conn) release(l filters.Line, now time.Time, flush bool) error {
	if len(c.taps) > 0 {
		c.held[l.Dir].release(c.taps, ReleasePassage(l, now))
	}
	if err := c.write(l.Dir, l.Raw, !l.Original || !l.Held.NoEOL); err != nil {
		return err
	}
	if !flush {
		return nil
	}
	if err := c.writers[l.Dir].flush(); err != nil {
		return fmt.Errorf("%s: write: %w", l.Dir, err)
	}
	return nil
}

// sinkOther writes a line the proxy adds on its own, and flushes it: the
// pump of that direction may be idle, waiting on its peer. timed: a timer
// or a drain released it.
func (c *Conn) sinkOther(d acp.Direction, raw []byte, now time.Time, timed bool) error {
	for _, t := range c.taps {
		t.added(d, now, raw, timed)
	}
	if err := c.write(d, raw, true); err != nil {
		return err
	}
	if err := c.writers[d].flush(); err != nil {
		return fmt.Errorf("%s: write: %w", d, err)
	}
	return nil
}

// CloseWriter flushes direction d's output and closes it, so that side's
// peer reads EOF (the editor closed stdin: the agent's stdin is closed).
func (c *Conn) CloseWriter(d acp.Direction) error { return c.writers[d].closeStream() }
