package trace

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// Recorder appends a JSONL trace: one record per line that crossed the
// proxy. It is a tap on the relay (proxy.Tap): the relay hands it every line
// it read and what it wrote for it. The format is documented in README.md ("Trace format"):
//
//	{"t":0.001204,"dir":"client->agent","msg":{...}}        a JSON line, verbatim
//	{"t":…,"dir":…,"text":"not json"}                      any other UTF-8 line
//	{"t":…,"dir":…,"b64":"…"}                              other bytes, or a line too long to filter
//	"eol":false                                            the line had no '\n' (last line of a stream)
//	"out":[…]                                              a filter changed it: what was sent on instead
//	"held":true                                            a filter held it back: it left later, unchanged
//	{"t":…,"dir":…,"msg":{…},"heldSince":…}                that held line leaving, as it came ("t": when; "out": changed)
//	{"t":…,"dir":…,"out":[…]}                              lines the proxy itself added
//	{"t":…,"dir":…,"read":{…}}                             what a filter read from the disk (Disk)
//	{"t":…,"dir":…,"note":{…}}                             a decision a filter took (Note)
//
// It is safe for concurrent use by both directions. Records are appended
// whole, one at a time; a line too long to filter is recorded as it streams
// through (see longLine) without holding the trace meanwhile.
type Recorder struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	err   error

	// A recording into a file (RecordFile): its gzip members, when it
	// compresses; the file, closed by Close; and the timer that flushes
	// what is buffered flushDelay after a record was written.
	gz         *members
	file       *fileWriter
	flushDelay time.Duration
	flushTimer *time.Timer
	closed     bool

	// While direction d streams a long line, its record is being spooled
	// and has no place in the trace yet: records others add for d (a filter
	// answering from the other side, a timer) wait in after[d] and follow
	// it, as their lines follow it on the wire. The other direction's
	// records go straight in.
	long  [2]bool
	after [2][]byte
}

// NewRecorder writes a trace to w, with times relative to start.
func NewRecorder(w io.Writer, start time.Time) *Recorder {
	return &Recorder{w: bufio.NewWriterSize(w, 64<<10), start: start}
}

var _ proxy.Tap = (*Recorder)(nil)

// Passed records a line as it arrived, and what was sent in its place when
// that differs.
func (r *Recorder) Passed(p *proxy.Passage) {
	rec := r.lineRecord(p.Time, p)
	if p.Held {
		rec = append(rec, `,"held":true`...)
	}
	if p.Changed() {
		rec = appendOut(rec, p.Out)
	}
	r.write(p.Dir, append(rec, '}', '\n'))
}

// Released records a held line leaving: the line's own record (byte for
// byte, as its "held" record has it), at the time it left, with the time it
// arrived, and, when it left changed, what was sent in its place ("out").
func (r *Recorder) Released(p *proxy.Passage) {
	rec := r.lineRecord(p.Left, p)
	rec = append(rec, `,"heldSince":`...)
	rec = appendSeconds(rec, p.Time.Sub(r.start))
	if p.Changed() {
		rec = appendOut(rec, p.Out)
	}
	r.write(p.Dir, append(rec, '}', '\n'))
}

// Added records a line the proxy sent on its own.
func (r *Recorder) Added(d acp.Direction, t time.Time, line []byte, _ bool) {
	r.added(t, d, line)
}

// Long records a line too long to filter as it streams through.
func (r *Recorder) Long(d acp.Direction) proxy.LongLine { return r.beginLong(d) }

// End writes out what is buffered: a direction's input has ended.
func (r *Recorder) End(acp.Direction) error { return r.Flush() }

// AppendLine appends the record field for one line: "msg", "text" or "b64".
// It is how traces embed lines everywhere, so replays reproduce them exactly.
func AppendLine(dst, b []byte) []byte { return appendLine(dst, b, false) }

// appendLine is AppendLine for a line the caller may already know to be a
// valid JSON object (the filters' view parsed it), so it is not scanned twice.
func appendLine(dst, b []byte, knownValid bool) []byte {
	switch {
	case knownValid && !rawjson.IsSpace(b[0]) && !rawjson.IsSpace(b[len(b)-1]), embeddable(b):
		dst = append(dst, `"msg":`...)
		return append(dst, b...)
	case utf8.Valid(b):
		dst = append(dst, `"text":`...)
		return rawjson.AppendQuote(dst, string(b))
	default:
		dst = append(dst, `"b64":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, b)
		return append(dst, '"')
	}
}

// embeddable reports whether b can stand in a record as itself: valid JSON
// with no whitespace around it, which a reader of the record would drop.
func embeddable(b []byte) bool {
	return len(b) > 0 && !rawjson.IsSpace(b[0]) && !rawjson.IsSpace(b[len(b)-1]) && rawjson.Valid(b)
}

// AppendHeader appends `{"t":SECONDS,"dir":"…"` for a record at t.
func AppendHeader(dst []byte, elapsed time.Duration, d acp.Direction) []byte {
	dst = appendSeconds(append(dst, `{"t":`...), elapsed)
	dst = append(dst, `,"dir":"`...)
	dst = append(dst, d.String()...)
	return append(dst, '"')
}

// appendSeconds appends a time since the start, as "t" has it.
func appendSeconds(dst []byte, elapsed time.Duration) []byte {
	return strconv.AppendFloat(dst, elapsed.Seconds(), 'f', 6, 64)
}

// lineRecord begins the record of p's line at t, left open: its header,
// the line ("msg", "text" or "b64": Valid says the filters' view found a
// valid JSON object) and its ending.
func (r *Recorder) lineRecord(t time.Time, p *proxy.Passage) []byte {
	rec := AppendHeader(nil, t.Sub(r.start), p.Dir)
	rec = append(rec, ',')
	rec = appendLine(rec, p.Line, p.Valid)
	if !p.EOL {
		rec = append(rec, `,"eol":false`...)
	}
	return rec
}

// added records a line the proxy sent on its own (timers, answers).
func (r *Recorder) added(t time.Time, d acp.Direction, line []byte) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, `,"out":[`...)
	rec = appendOutLine(rec, line)
	r.write(d, append(rec, ']', '}', '\n'))
}

func appendOut(rec []byte, out []proxy.Sent) []byte {
	rec = append(rec, `,"out":[`...)
	for i, o := range out {
		if i > 0 {
			rec = append(rec, ',')
		}
		rec = appendOutLine(rec, o.Line)
	}
	return append(rec, ']')
}

// appendOutLine appends one element of "out": the line itself when it can
// stand as JSON, else as a string.
func appendOutLine(rec, line []byte) []byte {
	if embeddable(line) {
		return append(rec, line...)
	}
	return rawjson.AppendQuote(rec, string(line))
}

// write appends one whole record of direction d.
func (r *Recorder) write(d acp.Direction, rec []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.long[d] {
		r.after[d] = append(r.after[d], rec...)
		return
	}
	r.writeLocked(rec)
}

func (r *Recorder) writeLocked(rec []byte) {
	if r.err == nil && r.w.Available() < len(rec) && r.w.Buffered() > 0 {
		// Whole records to the file, each write: what a killed proxy
		// leaves ends with one (a larger record is one write of its own).
		r.err = r.w.Flush()
	}
	if r.err == nil {
		_, r.err = r.w.Write(rec)
	}
	if r.flushDelay > 0 && r.flushTimer == nil && !r.closed {
		r.flushTimer = time.AfterFunc(r.flushDelay, r.timedFlush)
	}
}

// longLine records a line too long to filter as it streams through, in
// pieces, as base64. The pieces go to a spool file of its own, not to the
// trace: the pump reads the next piece from its peer in between, and the
// other direction must not wait for that peer. At end, the whole record is
// appended to the trace at once, stamped with the time the line ended (a
// short line's record has the time it was read whole, too).
type longLine struct {
	r     *Recorder
	d     acp.Direction
	spool *os.File
	buf   *bufio.Writer
	enc   io.WriteCloser
	err   error // the spool failed: the record is lost, and recording stops
}

func (r *Recorder) beginLong(d acp.Direction) *longLine {
	l := &longLine{r: r, d: d}
	l.spool, l.err = os.CreateTemp("", "acp-proxy-long-line-*")
	if l.err == nil {
		_ = os.Remove(l.spool.Name()) // gone when closed, or when the proxy dies
		l.buf = bufio.NewWriterSize(l.spool, 64<<10)
		l.enc = base64.NewEncoder(base64.StdEncoding, l.buf)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.long[d] = true
	return l
}

// Piece records the next part of the line.
func (l *longLine) Piece(b []byte) {
	if l.err == nil {
		_, l.err = l.enc.Write(b)
	}
}

// End appends the line's record to the trace, and what waited for it.
func (l *longLine) End(t time.Time, eol bool) {
	if l.err == nil {
		l.err = l.enc.Close()
	}
	if l.err == nil {
		l.err = l.buf.Flush()
	}
	if l.err == nil {
		_, l.err = l.spool.Seek(0, io.SeekStart)
	}
	if l.spool != nil {
		defer l.spool.Close()
	}
	r := l.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.long[l.d] = false
	if l.err != nil && r.err == nil {
		r.err = fmt.Errorf("spooling a long line's record: %w", l.err)
	}
	rec := AppendHeader(nil, t.Sub(r.start), l.d)
	r.writeLocked(append(rec, `,"b64":"`...))
	if r.err == nil {
		// A local file, copied under the lock: records must not interleave.
		_, r.err = io.Copy(r.w, l.spool)
	}
	tail := `"}` + "\n"
	if !eol {
		tail = `","eol":false}` + "\n"
	}
	r.writeLocked([]byte(tail))
	r.writeLocked(r.after[l.d])
	r.after[l.d] = nil
}

// ConnectionInfo is what a "connection" record says of a proxy run.
type ConnectionInfo struct {
	Started time.Time `json:"started"` // the wall clock at the start
	Agent   []string  `json:"agent"`   // the agent's command line
	Proxy   string    `json:"proxy"`   // acp-proxy's version
	Args    []string  `json:"args"`    // the proxy's own arguments (its flags)
}

// Begin records the start of a proxy run: `--record` appends, so one file
// may hold many, and a reader tells them apart by these records.
func (r *Recorder) Begin(info ConnectionInfo) error {
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	r.connection(r.start, b)
	return nil
}

// connection records the start of a connection, described by the JSON
// object info.
func (r *Recorder) connection(t time.Time, info []byte) {
	rec := append([]byte(`{"t":`), strconv.AppendFloat(nil, t.Sub(r.start).Seconds(), 'f', 6, 64)...)
	rec = append(append(rec, `,"connection":`...), info...)
	r.write(acp.ClientToAgent, append(rec, '}', '\n'))
}

// Flush writes buffered records out (and, gzip'd, ends the compressed
// block, so that a reader of the file can decompress them).
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flushLocked()
}

func (r *Recorder) flushLocked() error {
	if r.err != nil || r.closed {
		return r.err
	}
	r.err = r.w.Flush()
	if r.err == nil && r.gz != nil {
		r.err = r.gz.end()
	}
	return r.err
}

// timedFlush is the flush flushDelay after a record was written.
func (r *Recorder) timedFlush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushTimer = nil
	_ = r.flushLocked()
}
