package trace

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// DiskAnswer is a "read" record of a trace: a question a filter asked of the
// disk (filters.Disk) and the answer it got, a JSON value or an error.
type DiskAnswer struct {
	filters.DiskRead
	Answer []byte // JSON; nil when Err is set
	Err    string
}

// appendRead appends the record field `"read":{…}` for a.
func appendRead(dst []byte, a DiskAnswer) []byte {
	dst = append(dst, `"read":{"kind":`...)
	dst = rawjson.AppendQuote(dst, a.Kind)
	dst = append(dst, `,"path":`...)
	dst = rawjson.AppendQuote(dst, a.Path)
	if a.Args != nil {
		dst = append(dst, `,"args":`...)
		dst = append(dst, a.Args...)
	}
	if a.Err != "" || a.Answer == nil {
		dst = append(dst, `,"error":`...)
		dst = rawjson.AppendQuote(dst, a.Err)
	} else {
		dst = append(dst, `,"answer":`...)
		dst = append(dst, a.Answer...)
	}
	return append(dst, '}')
}

// parseRead parses a "read" record's value.
func parseRead(val []byte) (*DiskAnswer, error) {
	a := &DiskAnswer{}
	var err error
	merr := rawjson.Members(val, func(key, v []byte) bool {
		switch string(key) {
		case "kind":
			a.Kind, err = rawjson.Unquote(v)
		case "path":
			a.Path, err = rawjson.Unquote(v)
		case "args":
			a.Args = append([]byte(nil), v...)
		case "answer":
			a.Answer = append([]byte(nil), v...)
		case "error":
			a.Err, err = rawjson.Unquote(v)
		}
		return err == nil
	})
	switch {
	case merr != nil || err != nil:
		return nil, errors.New(`"read" must be an object of strings "kind", "path", "error" and JSON "args", "answer"`)
	case a.Kind == "" || a.Path == "":
		return nil, errors.New(`"read" must name its "kind" and "path"`)
	case a.Answer == nil && a.Err == "":
		return nil, errors.New(`"read" has neither "answer" nor "error"`)
	case a.Answer != nil && a.Err != "":
		return nil, errors.New(`"read" has both "answer" and "error"`)
	}
	return a, nil
}

// Disk is the filters' disk while the proxy records: the OS, with every
// answer appended to the trace before the record of the message it was read
// for (the message is recorded once the filters are done with it).
func (r *Recorder) Disk() filters.Disk { return recordingDisk{r} }

type recordingDisk struct{ r *Recorder }

func (d recordingDisk) Read(m *filters.Message, q filters.DiskRead, read func() ([]byte, error)) ([]byte, error) {
	answer, err := read()
	a := DiskAnswer{DiskRead: q, Answer: answer}
	if err != nil {
		a.Err = err.Error()
	}
	d.r.read(m.Time, m.Dir, a)
	return answer, err
}

// read records what a filter read from the disk.
func (r *Recorder) read(t time.Time, d acp.Direction, a DiskAnswer) {
	rec := AppendHeader(nil, t.Sub(r.start), d)
	rec = append(rec, ',')
	rec = appendRead(rec, a)
	r.write(d, append(rec, '}', '\n'))
}

// Disk answers the filters' questions from a trace's "read" records,
// in a replay: each answer once, in the order they were recorded. A question
// the trace does not answer is read from this machine's disk, and Missing
// (if set) is told, once per file.
type Disk struct {
	Missing func(q filters.DiskRead, err error)

	mu      sync.Mutex
	answers map[string][]DiskAnswer
	last    map[string]DiskAnswer // per question of a kind that reads the same again (rereadable)
	told    map[string]bool
}

// rereadable are the kinds of question whose file nothing in a session
// changes once written, so that a replay may answer a question asked again
// with the recording's last answer: a saved tool output, which the agent
// writes once and --expand-persisted-output reads for the call's updates
// (the final one included, since it always shows the output; traces
// recorded before that hold one read per call).
var rereadable = map[string]bool{"saved-output": true}

func diskKey(q filters.DiskRead) string {
	return q.Kind + "\x00" + q.Path + "\x00" + string(q.Args)
}

// add keeps a recorded answer.
func (td *Disk) add(a DiskAnswer) {
	td.mu.Lock()
	defer td.mu.Unlock()
	if td.answers == nil {
		td.answers = map[string][]DiskAnswer{}
	}
	k := diskKey(a.DiskRead)
	td.answers[k] = append(td.answers[k], a)
}

func (td *Disk) Read(_ *filters.Message, q filters.DiskRead, read func() ([]byte, error)) ([]byte, error) {
	if answer, err, ok := td.take(q); ok {
		return answer, err
	}
	td.mu.Lock()
	tell := !td.told[q.Kind+"\x00"+q.Path]
	if tell {
		if td.told == nil {
			td.told = map[string]bool{}
		}
		td.told[q.Kind+"\x00"+q.Path] = true
	}
	td.mu.Unlock()
	answer, err := read()
	if tell && td.Missing != nil && !errors.Is(err, filters.ErrNotRead) {
		td.Missing(q, err)
	}
	return answer, err
}

// take returns the next recorded answer to q, if there is one left.
func (td *Disk) take(q filters.DiskRead) (answer []byte, err error, ok bool) {
	k := diskKey(q)
	td.mu.Lock()
	defer td.mu.Unlock()
	as := td.answers[k]
	if len(as) == 0 {
		a, ok := td.last[k]
		if !ok {
			return nil, nil, false
		}
		as = []DiskAnswer{a}
	}
	a := as[0]
	td.answers[k] = as[1:]
	if rereadable[q.Kind] {
		if td.last == nil {
			td.last = map[string]DiskAnswer{}
		}
		td.last[k] = a
	}
	if a.Err != "" || a.Answer == nil {
		return nil, errors.New(a.Err), true
	}
	return bytes.Clone(a.Answer), nil, true
}

// MissingNote is what a replay says of a file its trace does not carry: which
// file, and what it used instead.
func MissingNote(q filters.DiskRead, err error) string {
	what := map[string]string{
		"script-edits": "the files a shell script writes (--shell-to-patch)",
		"write-target": "the target of a shell write (--shell-to-patch)",
		"saved-output": "a saved tool output (--expand-persisted-output)",
		"changes":      "what changed while a command ran (--show-changes)",
	}[q.Kind]
	if what == "" {
		what = q.Kind
	}
	if err != nil {
		return fmt.Sprintf("the trace does not hold %s %s, and this machine's copy could not be used (%v): the filter left it alone", what, q.Path, err)
	}
	return fmt.Sprintf("the trace does not hold %s %s: used this machine's copy, which may differ from the recording's", what, q.Path)
}
