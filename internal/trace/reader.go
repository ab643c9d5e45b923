package trace

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Record is one record of a trace (see Recorder for the format).
type Record struct {
	T       time.Duration
	Dir     acp.Direction
	Line    []byte   // the line as received; nil in a record of added lines
	HasLine bool     // the record has msg, text or b64
	EOL     bool     // the line ended in '\n'
	Out     [][]byte // what was sent instead, when a filter changed it
	HasOut  bool
	// Held says a filter held the line back when it arrived: it left
	// later, unchanged, in a record of its own (Released) at the time it
	// left; Out, if any, is what was sent meanwhile.
	Held bool
	// Released says the record is a held line leaving, unchanged, at T:
	// not a line received (it was, at HeldSince, in its "held" record).
	Released  bool
	HeldSince time.Duration
	// Src, in the output of a replay that marks sources (ReplayOptions),
	// is the number of the received line (from 0 over the trace's lines)
	// this delivered line was made from, -1 when not marked; Timer says a
	// timer released it after that line.
	Src   int
	Timer bool
	// Conn is a "connection" record's object: the start of a proxy run's
	// records (see Recorder.Begin).
	Conn []byte
	// Read is a "read" record's: what a filter read from the disk (then
	// the record has no line).
	Read *DiskAnswer
	// Note is a "note" record's: a decision a filter took (see
	// Recorder.Note); the record has no line. Its Time is zero: T is when.
	Note *filters.Note
	// JSON says Line is the record's "msg": a JSON value the reader has
	// validated, which its user may walk without validating it again.
	JSON bool
}

// Reader reads a trace one record at a time.
type Reader struct {
	r    *bufio.Reader
	line int
	// Observe, when set, is given each record Next returns, before Next
	// returns it: a second reader of the same trace (acp-proxy view
	// watches what a replay reads) without a second parse. Neither may
	// modify the record's bytes.
	Observe func(Record)
}

// NewReader reads the trace in r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Error is a malformed trace record.
type Error struct {
	Line int
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("trace line %d: %v", e.Line, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Next returns the next record, or io.EOF after the last. Blank lines are
// skipped, so traces can be concatenated and hand-edited.
func (tr *Reader) Next() (Record, error) {
	for {
		b, err := tr.r.ReadBytes('\n')
		if isCut(err) {
			// A gzip'd trace cut short: what came before the cut is the
			// trace, less the record the cut split.
			return Record{}, io.EOF
		}
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return Record{}, io.EOF
			}
			return Record{}, fmt.Errorf("reading trace: %w", err)
		}
		tr.line++
		if len(b) > 0 && b[len(b)-1] == '\n' {
			b = b[:len(b)-1]
		}
		if len(rawjson.TrimSpace(b)) == 0 {
			continue
		}
		rec, perr := parseRecord(b)
		if perr != nil {
			return Record{}, &Error{Line: tr.line, Err: perr}
		}
		if tr.Observe != nil {
			tr.Observe(rec)
		}
		return rec, nil
	}
}

// All returns an iterator over the records that are left: each record with
// a nil error, then, if the trace is malformed or cannot be read, that error
// once. It ends at the end of the trace.
func (tr *Reader) All() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for {
			rec, err := tr.Next()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

var (
	errNotARecord = errors.New("not a JSON object, so not a trace record: a trace has one per line, as acp-proxy --record FILE writes them")
	errACPMessage = errors.New(`missing "t": this line is an ACP message, not a trace record: a log of messages is not a trace; acp-proxy --record FILE writes one, each message wrapped as {"t":…,"dir":…,"msg":{…}}`)
)

// isMessage reports whether the JSON object b is a JSON-RPC message.
func isMessage(b []byte) bool {
	_, rpc := rawjson.Get(b, "jsonrpc")
	_, method := rawjson.Get(b, "method")
	_, result := rawjson.Get(b, "result")
	return rpc || method || result
}

func parseRecord(b []byte) (Record, error) {
	rec := Record{EOL: true, Src: -1}
	var haveT, haveDir bool
	var err error
	merr := rawjson.Members(b, func(key, val []byte) bool {
		switch k := string(key); k {
		case "t":
			haveT = true
			rec.T, err = parseSeconds(k, val)
		case "dir":
			haveDir = true
			rec.Dir, err = parseDirection(val)
		case "msg", "text", "b64":
			err = rec.parseLine(k, val)
		default:
			err = rec.parseField(k, val)
		}
		return err == nil
	})
	switch {
	case err != nil:
		return rec, err
	case merr != nil:
		return rec, errNotARecord
	case !haveT && !haveDir && isMessage(b):
		return rec, errACPMessage
	case !haveT:
		return rec, errors.New(`missing "t"`)
	case rec.Conn != nil:
		return rec, nil
	case !haveDir:
		return rec, errors.New(`missing "dir"`)
	case !rec.HasLine && !rec.HasOut && rec.Read == nil && rec.Note == nil:
		return rec, errors.New(`record has none of "msg", "text", "b64", "out", "read" or "note"`)
	}
	return rec, nil
}

// parseSeconds reads a time since the start: "t", "heldSince".
func parseSeconds(key string, val []byte) (time.Duration, error) {
	var secs float64
	if err := json.Unmarshal(val, &secs); err != nil || secs < 0 || math.IsInf(secs, 0) || math.IsNaN(secs) {
		return 0, fmt.Errorf(`%q must be seconds since the start, got %s`, key, val)
	}
	return time.Duration(math.Round(secs*1e6)) * time.Microsecond, nil
}

// parseDirection reads "dir".
func parseDirection(val []byte) (acp.Direction, error) {
	s, _ := rawjson.Unquote(val)
	switch s {
	case acp.ClientToAgent.String():
		return acp.ClientToAgent, nil
	case acp.AgentToClient.String():
		return acp.AgentToClient, nil
	}
	return 0, fmt.Errorf(`"dir" must be %q or %q, got %s`, acp.ClientToAgent, acp.AgentToClient, val)
}

// parseLine reads the line, from "msg" (JSON), "text" or "b64".
func (rec *Record) parseLine(key string, val []byte) error {
	rec.HasLine = true
	switch key {
	case "msg":
		rec.Line, rec.JSON = append([]byte(nil), val...), true
	case "text":
		s, err := rawjson.Unquote(val)
		if err != nil {
			return fmt.Errorf(`"text" must be a string`)
		}
		rec.Line = []byte(s)
	case "b64":
		s, err := rawjson.Unquote(val)
		if err == nil {
			rec.Line, err = base64.StdEncoding.DecodeString(s)
		}
		if err != nil {
			return fmt.Errorf(`"b64" must be base64: %v`, err)
		}
	}
	return nil
}

// parseField reads the fields besides "t", "dir" and the line; it ignores
// those it does not know.
func (rec *Record) parseField(key string, val []byte) error {
	var err error
	switch key {
	case "connection":
		if len(val) == 0 || val[0] != '{' {
			return errors.New(`"connection" must be an object`)
		}
		rec.Conn = append([]byte(nil), val...)
	case "read":
		rec.Read, err = parseRead(val)
	case "note":
		rec.Note, err = parseNote(val)
	case "src":
		n, perr := strconv.Atoi(string(val))
		if perr != nil || n < 0 {
			return fmt.Errorf(`"src" must be a line number, got %s`, val)
		}
		rec.Src = n
	case "timer":
		rec.Timer = string(val) == "true"
	case "eol":
		rec.EOL = string(val) != "false"
	case "held":
		rec.Held = string(val) == "true"
	case "heldSince":
		rec.Released = true
		rec.HeldSince, err = parseSeconds(key, val)
	case "out":
		rec.HasOut = true
		err = rawjson.Elements(val, func(_ int, el []byte) bool {
			if len(el) > 0 && el[0] == '"' {
				s, _ := rawjson.Unquote(el)
				rec.Out = append(rec.Out, []byte(s))
			} else {
				rec.Out = append(rec.Out, append([]byte(nil), el...))
			}
			return true
		})
		if err != nil {
			return fmt.Errorf(`"out" must be an array: %v`, err)
		}
	}
	return err
}
