package trace

import (
	"errors"
	"strconv"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// Note records a filter's note that is a decision the trace keeps
// (filters.Note.Audit: the policy's), as a "note" record of the
// direction of the message it was taken on; other notes are for observers
// that show them live. A note is taken while its message is filtered, so
// its record comes before the message's, as a "read" record does.
//
//	{"t":…,"dir":"agent->client","note":{"filter":"policy","event":"deny (line 2) by policy",
//	  "sessionId":"s1","toolCallId":"c1","request":7,"detail":"deny (line 2: Bash(git push:*)): …"}}
func (r *Recorder) Note(n filters.Note) {
	if !n.Audit {
		return
	}
	rec := AppendHeader(nil, n.Time.Sub(r.start), n.Dir)
	rec = appendNote(append(rec, ','), n)
	r.write(n.Dir, append(rec, '}', '\n'))
}

// appendNote appends the record field `"note":{…}` for n: its filter and
// event, and the session, call, request, files and detail it has.
func appendNote(dst []byte, n filters.Note) []byte {
	dst = append(dst, `"note":{"filter":`...)
	dst = rawjson.AppendQuote(dst, n.Filter)
	dst = append(dst, `,"event":`...)
	dst = rawjson.AppendQuote(dst, n.Event)
	for _, f := range [...]struct{ key, val string }{{"sessionId", n.SessionID}, {"toolCallId", n.ToolCallID}} {
		if f.val != "" {
			dst = append(append(append(dst, `,"`...), f.key...), `":`...)
			dst = rawjson.AppendQuote(dst, f.val)
		}
	}
	if n.RequestID != "" && rawjson.Valid([]byte(n.RequestID)) {
		dst = append(append(dst, `,"request":`...), n.RequestID...)
	}
	if n.Files > 0 {
		dst = strconv.AppendInt(append(dst, `,"files":`...), int64(n.Files), 10)
	}
	if n.Detail != "" {
		dst = rawjson.AppendQuote(append(dst, `,"detail":`...), n.Detail)
	}
	return append(dst, '}')
}

// parseNote parses a "note" record's value. The record's time and
// direction are the record's; the note is one the trace kept (Audit).
func parseNote(val []byte) (*filters.Note, error) {
	n := &filters.Note{Audit: true}
	var err error
	merr := rawjson.Members(val, func(key, v []byte) bool {
		switch string(key) {
		case "filter":
			n.Filter, err = rawjson.Unquote(v)
		case "event":
			n.Event, err = rawjson.Unquote(v)
		case "sessionId":
			n.SessionID, err = rawjson.Unquote(v)
		case "toolCallId":
			n.ToolCallID, err = rawjson.Unquote(v)
		case "request":
			n.RequestID = string(v)
		case "files":
			n.Files, err = strconv.Atoi(string(v))
		case "detail":
			n.Detail, err = rawjson.Unquote(v)
		}
		return err == nil
	})
	switch {
	case merr != nil || err != nil:
		return nil, errors.New(`"note" must be an object of strings "filter", "event", "sessionId", "toolCallId", "detail", a number "files" and a JSON-RPC id "request"`)
	case n.Filter == "" || n.Event == "":
		return nil, errors.New(`"note" must name its "filter" and "event"`)
	}
	return n, nil
}

// redactNote redacts a "note" record: its filter, event, ids and files
// stay (an event names no file or command), its detail does not.
func redactNote(n filters.Note) filters.Note {
	n.Detail = redactText(n.Detail)
	return n
}
