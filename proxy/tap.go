package proxy

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Tap watches a connection at the edges of its filter chain: the lines read,
// what the chain wrote for them, the lines the proxy wrote on its own. The
// trace recorder (--record) and the figures of --stats are taps; the relay
// knows nothing else of them.
//
// A tap that panics is switched off for the rest of the connection, with
// one log line, and the relay goes on (see Fuse). A tap must not block: the
// pump waits for each call.
//
// A direction's calls come from its pump, one at a time; Added and
// Released may come from the other pump or a timer meanwhile, so a tap that keeps state
// across directions guards it. A Passage and every slice are valid only
// during the call (the relay reuses them): a tap copies what it keeps.
type Tap interface {
	// Passed is called once per whole line read, after the chain has
	// written what it makes of it.
	Passed(p *Passage)
	// Added is called for a line the proxy wrote on its own in direction
	// d at t: timed, a coalescing filter's timer or the end of the input
	// released it; otherwise a filter wrote it while handling a line of
	// the other direction (an answer, held output it sends first).
	Added(d acp.Direction, t time.Time, line []byte, timed bool)
	// Released is called when a line a filter held back (its Passage said
	// Held) leaves, at p.Left: p is the line as read (its time, its bytes,
	// its ending), and Out what left for it: the line itself (Original),
	// or, changed (p.Changed), the line a filter sent in its place. It is
	// not a line the proxy added: the line read passed, late. Held lines of a
	// direction leave in the order they came; a timer may release one
	// before the pump has told of its Passage.
	Released(p *Passage)
	// Long is called when a line too long to filter starts streaming
	// through direction d; it is given the line's pieces and its end.
	Long(d acp.Direction) LongLine
	// End is called when direction d's input has ended and its output has
	// been flushed. An error is logged, and the tap is switched off (not
	// told of the other direction's end): its record is incomplete.
	End(d acp.Direction) error
}

// RunTap is a Tap that can be told at once of a run of whole lines that
// passed as they were read, one after the other, at t, each ended by '\n'
// (no filter read them, or every filter skipped them): as if Passed were
// told of each with Out the line itself. The relay tells a run so when a
// tap implements it, sparing a call and a Passage per line; most of what an
// agent sends (its text) passes in such runs.
type RunTap interface {
	Tap
	PassedRun(d acp.Direction, t time.Time, lines [][]byte)
}

// Passage is one whole line a connection read, and what it wrote for it in
// the same direction.
type Passage struct {
	Dir  acp.Direction
	Time time.Time // when it was read
	Line []byte    // as read, without its '\n'
	EOL  bool      // it ended in '\n' (false: the last line of a stream)
	// Valid says Line is one valid JSON object, as the filters' view found
	// it; false when nobody looked.
	Valid bool
	// Out is what was written for it, in order: nothing when a filter
	// dropped it; the line itself (Original) when it passed unchanged.
	Out []Sent
	// Held says a filter held the line back, to send it on later
	// (Released): Out is what was written for it meanwhile. In a Passage
	// given to Released, Released is set, Left is when the line left, and
	// Out is what left for it.
	Held     bool
	Released bool
	Left     time.Time
}

// Sent is one line written for a Passage.
type Sent struct {
	Line     []byte
	Original bool // the line as read, written with its own ending
}

// Changed reports whether what was written differs from what was read:
// changed, dropped or split. A held line is not changed by being held: its
// Passage says what was written besides it (Out), if anything; the Passage
// of its release, whether it left changed.
func (p *Passage) Changed() bool {
	if p.Held && !p.Released {
		return len(p.Out) > 0
	}
	return len(p.Out) != 1 || !p.Out[0].Original
}

// LongLine follows one line too long to filter as it streams through.
type LongLine interface {
	Piece(b []byte)
	// End is called once the line has ended at t, after its last piece;
	// eol says it ended in '\n'.
	End(t time.Time, eol bool)
}

// Fuse switches an observer off, for good, the first time it panics: an
// observer must never harm the session it watches. The relay puts one on
// each of its taps (see watcher); an observer that works on a goroutine of
// its own defers Recover there too, and stops working once Blown.
type Fuse struct {
	Name  string       // the observer, for the log
	Log   *slog.Logger // nil: no log
	blown atomic.Bool
}

// Recover, deferred, turns a panic into the fuse blowing: the observer is
// off, and the log says so once, with the panic and where it happened (in:
// what the observer was doing).
func (f *Fuse) Recover(in string) {
	v := recover()
	if v == nil || !f.blown.CompareAndSwap(false, true) {
		return
	}
	if f.Log != nil {
		f.Log.Error("observer failed; switched off for the rest of the connection (the relay goes on)",
			"observer", f.Name, "in", in, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	}
}

// Blown reports that the observer failed and is off.
func (f *Fuse) Blown() bool { return f.blown.Load() }

// watcher is one of a connection's taps behind its fuse: each call goes
// to the tap until the tap panics once, then none does.
type watcher struct {
	tap  Tap
	fuse Fuse
}

func newWatchers(taps []Tap, log *slog.Logger) []*watcher {
	ws := make([]*watcher, len(taps))
	for i, t := range taps {
		ws[i] = &watcher{tap: t, fuse: Fuse{Name: fmt.Sprintf("%T", t), Log: log}}
	}
	return ws
}

func (w *watcher) passed(p *Passage) {
	if w.fuse.Blown() {
		return
	}
	defer w.fuse.Recover("Passed")
	w.tap.Passed(p)
}

// passedRun tells the tap of a run of lines that passed as read (see
// RunTap), one by one in p (reused) when it takes them so.
func (w *watcher) passedRun(d acp.Direction, t time.Time, lines [][]byte, p *Passage) {
	if w.fuse.Blown() {
		return
	}
	defer w.fuse.Recover("Passed")
	if rt, ok := w.tap.(RunTap); ok {
		rt.PassedRun(d, t, lines)
		return
	}
	for _, l := range lines {
		*p = Passage{Dir: d, Time: t, Line: l, EOL: true, Out: append(p.Out[:0], Sent{Line: l, Original: true})}
		w.tap.Passed(p)
	}
}

func (w *watcher) added(d acp.Direction, t time.Time, line []byte, timed bool) {
	if w.fuse.Blown() {
		return
	}
	defer w.fuse.Recover("Added")
	w.tap.Added(d, t, line, timed)
}

func (w *watcher) released(p *Passage) {
	if w.fuse.Blown() {
		return
	}
	defer w.fuse.Recover("Released")
	w.tap.Released(p)
}

// long is the tap's LongLine for a line starting in direction d, behind
// the same fuse; nil when the tap is off.
func (w *watcher) long(d acp.Direction) (l *watchedLong) {
	if w.fuse.Blown() {
		return nil
	}
	defer w.fuse.Recover("Long")
	return &watchedLong{w: w, line: w.tap.Long(d)}
}

// end tells the tap that direction d ended, and returns what it says
// (nil when it is off or panicked: its fuse logged that). A tap that
// returns an error has failed: it is off too.
func (w *watcher) end(d acp.Direction) (err error) {
	if w.fuse.Blown() {
		return nil
	}
	defer w.fuse.Recover("End")
	if err = w.tap.End(d); err != nil {
		w.fuse.blown.Store(true)
	}
	return err
}

type watchedLong struct {
	w    *watcher
	line LongLine
}

func (l *watchedLong) piece(b []byte) {
	if l == nil || l.w.fuse.Blown() {
		return
	}
	defer l.w.fuse.Recover("LongLine.Piece")
	l.line.Piece(b)
}

func (l *watchedLong) end(t time.Time, eol bool) {
	if l == nil || l.w.fuse.Blown() {
		return
	}
	defer l.w.fuse.Recover("LongLine.End")
	l.line.End(t, eol)
}
