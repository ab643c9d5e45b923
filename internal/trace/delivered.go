package trace

import (
	"io"
	"strconv"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// Delivered writes what each side received, as a trace that can be replayed
// again: one record per line delivered, the records that describe the
// trace ("connection", "read") as they came, and the decisions of the
// replay's filters ("note"). It is the sink a replay writes
// its output to.
//
// With marks, each delivered line names the received line it was made from
// ("src": its number, from 0 over the trace's lines; "timer": released by a
// timer after it), so that a reader pairs each message with what the filters
// made of it (acp-proxy view does).
type Delivered struct {
	r     *Recorder
	marks bool
	line  int // the received lines seen, less one
	// held are the numbers of the received lines a filter holds, per
	// direction, in the order they came (and leave: see proxy.Tap).
	held [2][]int
}

// NewDelivered writes to w; times are those of the trace replayed.
func NewDelivered(w io.Writer, marks bool) *Delivered {
	var epoch time.Time // the recorded clock: a record's t is relative to it
	return &Delivered{r: NewRecorder(w, epoch), marks: marks, line: -1}
}

var _ Sink = (*Delivered)(nil)

// Record copies the records that describe the trace, and counts its lines.
func (o *Delivered) Record(now time.Time, rec Record) {
	switch {
	case rec.Conn != nil:
		o.r.connection(now, rec.Conn)
	case rec.Read != nil:
		o.r.read(now, rec.Dir, *rec.Read)
	case rec.HasLine && !rec.Released: // a held line leaving was received before
		o.line++
	}
}

// Passed writes the lines made of a received line. The line itself keeps
// its ending; the lines a filter wrote are whole.
func (o *Delivered) Passed(p *proxy.Passage) {
	if p.Held {
		o.held[p.Dir] = append(o.held[p.Dir], o.line)
	}
	for _, s := range p.Out {
		o.r.emitted(p.Time, p.Dir, s.Line, p.EOL || !s.Original, o.source(false))
	}
}

// Note writes a decision the replay's chain took, as the live proxy's
// trace holds it (Recorder.Note). The recording's own notes are not
// copied: they are the recording's filters', as its added lines are.
func (o *Delivered) Note(n filters.Note) { o.r.Note(n) }

// Released writes what left for a held line, made from itself: the line
// received, passed late, or the line a filter sent in its place.
func (o *Delivered) Released(p *proxy.Passage) {
	var src *lineSource
	if q := &o.held[p.Dir]; len(*q) > 0 {
		if o.marks {
			src = &lineSource{line: (*q)[0]}
		}
		*q = (*q)[1:]
	}
	for _, s := range p.Out {
		o.r.emitted(p.Left, p.Dir, s.Line, p.EOL || !s.Original, src)
	}
}

// Added writes a line the chain sent on its own.
func (o *Delivered) Added(d acp.Direction, t time.Time, line []byte, timed bool) {
	o.r.emitted(t, d, line, true, o.source(timed))
}

// Long writes a line too long to filter whole, once it has ended.
func (o *Delivered) Long(d acp.Direction) proxy.LongLine { return &wholeLine{o: o, d: d} }

// End writes out what is buffered.
func (o *Delivered) End(acp.Direction) error { return o.r.Flush() }

// wholeLine gathers a long line's pieces.
type wholeLine struct {
	o    *Delivered
	d    acp.Direction
	line []byte
}

func (l *wholeLine) Piece(b []byte) { l.line = append(l.line, b...) }
func (l *wholeLine) End(t time.Time, eol bool) {
	l.o.r.emitted(t, l.d, l.line, eol, l.o.source(false))
}

// lineSource is which received line a delivered line was made from.
type lineSource struct {
	line  int  // the received line's number, from 0 over the trace's lines
	timer bool // released by a timer (or at the end) after that line
}

// source is what a line delivered now was made from, when marked.
func (o *Delivered) source(timer bool) *lineSource {
	if !o.marks || o.line < 0 {
		return nil
	}
	return &lineSource{line: o.line, timer: timer}
}

// emitted records a line as delivered to its receiver, with "src" (and
// "timer") naming the received line it came from when src is set.
func (r *Recorder) emitted(t time.Time, d acp.Direction, b []byte, eol bool, src *lineSource) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, ',')
	rec = AppendLine(rec, b)
	if !eol {
		rec = append(rec, `,"eol":false`...)
	}
	if src != nil {
		rec = append(rec, `,"src":`...)
		rec = strconv.AppendInt(rec, int64(src.line), 10)
		if src.timer {
			rec = append(rec, `,"timer":true`...)
		}
	}
	r.write(d, append(rec, '}', '\n'))
}
