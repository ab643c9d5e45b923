package proxy

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/rawjson"
)

// Recorder appends a JSONL trace: one record per line that crossed the
// proxy. The format is documented in README.md ("Trace format"):
//
//	{"t":0.001204,"dir":"client->agent","msg":{...}}        a JSON line, verbatim
//	{"t":…,"dir":…,"text":"not json"}                      any other UTF-8 line
//	{"t":…,"dir":…,"b64":"…"}                              other bytes, or a line too long to filter
//	"eol":false                                            the line had no '\n' (last line of a stream)
//	"out":[…]                                              a filter changed it: what was sent on instead
//	{"t":…,"dir":…,"out":[…]}                              lines the proxy itself added
//
// It is safe for concurrent use by both directions.
type Recorder struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	err   error
}

// NewRecorder writes a trace to w, with times relative to start.
func NewRecorder(w io.Writer, start time.Time) *Recorder {
	return &Recorder{w: bufio.NewWriterSize(w, 64<<10), start: start}
}

// AppendLine appends the record field for one line: "msg", "text" or "b64".
// It is how traces embed lines everywhere, so replays reproduce them exactly.
func AppendLine(dst, b []byte) []byte { return appendLine(dst, b, false) }

// appendLine is AppendLine for a line the caller may already know to be a
// valid JSON object (the filters' view parsed it), so it is not scanned twice.
func appendLine(dst, b []byte, knownValid bool) []byte {
	switch {
	case knownValid && !isSpace(b[0]) && !isSpace(b[len(b)-1]), embeddable(b):
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
	return len(b) > 0 && !isSpace(b[0]) && !isSpace(b[len(b)-1]) && rawjson.Valid(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// AppendHeader appends `{"t":SECONDS,"dir":"…"` for a record at t.
func AppendHeader(dst []byte, elapsed time.Duration, d filters.Direction) []byte {
	dst = append(dst, `{"t":`...)
	dst = strconv.AppendFloat(dst, elapsed.Seconds(), 'f', 6, 64)
	dst = append(dst, `,"dir":"`...)
	dst = append(dst, d.String()...)
	return append(dst, '"')
}

// received records a line as it arrived, and what was sent in its place when
// that differs (out nil: forwarded unchanged).
// knownValid says b is a valid JSON object, as the filters' view found.
func (r *Recorder) received(t time.Time, d filters.Direction, b []byte, eol, knownValid, changed bool, out [][]byte) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, ',')
	rec = appendLine(rec, b, knownValid)
	if !eol {
		rec = append(rec, `,"eol":false`...)
	}
	if changed {
		rec = appendOut(rec, out)
	}
	r.write(append(rec, '}', '\n'))
}

// added records lines the proxy sent on its own (timers, answers).
func (r *Recorder) added(t time.Time, d filters.Direction, out [][]byte) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = appendOut(rec, out)
	r.write(append(rec, '}', '\n'))
}

func appendOut(rec []byte, out [][]byte) []byte {
	rec = append(rec, `,"out":[`...)
	for i, o := range out {
		if i > 0 {
			rec = append(rec, ',')
		}
		if embeddable(o) {
			rec = append(rec, o...)
		} else {
			rec = rawjson.AppendQuote(rec, string(o))
		}
	}
	return append(rec, ']')
}

func (r *Recorder) write(rec []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		_, r.err = r.w.Write(rec)
	}
}

// longLine records a line too long to filter, streamed through in pieces, as
// base64. It holds the recorder until end, so records don't interleave.
type longLine struct {
	r   *Recorder
	enc io.WriteCloser
}

func (r *Recorder) beginLong(t time.Time, d filters.Direction) *longLine {
	r.mu.Lock()
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, `,"b64":"`...)
	if r.err == nil {
		_, r.err = r.w.Write(rec)
	}
	return &longLine{r: r, enc: base64.NewEncoder(base64.StdEncoding, errWriter{r})}
}

// errWriter keeps the recorder's sticky error.
type errWriter struct{ r *Recorder }

func (e errWriter) Write(p []byte) (int, error) {
	if e.r.err != nil {
		return 0, e.r.err
	}
	n, err := e.r.w.Write(p)
	e.r.err = err
	return n, err
}

func (l *longLine) piece(b []byte) { _, _ = l.enc.Write(b) }

func (l *longLine) end(eol bool) {
	_ = l.enc.Close()
	tail := `"`
	if !eol {
		tail += `,"eol":false`
	}
	_, _ = errWriter{l.r}.Write([]byte(tail + "}\n"))
	l.r.mu.Unlock()
}

// Flush writes buffered records out.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	r.err = r.w.Flush()
	return r.err
}

// emitted records a line as delivered to its receiver: replay output is a
// trace of what each side received, so it can be replayed again.
func (r *Recorder) emitted(t time.Time, d filters.Direction, b []byte) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, ',')
	rec = AppendLine(rec, b)
	r.write(append(rec, '}', '\n'))
}

// emittedNoEOL is emitted for a last line that had no '\n'.
func (r *Recorder) emittedNoEOL(t time.Time, d filters.Direction, b []byte) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, ',')
	rec = AppendLine(rec, b)
	r.write(append(rec, `,"eol":false}`+"\n"...))
}
