package trace

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseRecord: any line is a record or an error, never a panic; a
// "read" record written back reads the same; any record redacted reads as
// a record of the same shape.
func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		`{"t":0.1,"dir":"agent->client","msg":{"jsonrpc":"2.0"}}`,
		`{"t":0,"connection":{"started":"2026-11-25T21:00:00Z","agent":["a"],"proxy":"v","args":[]}}`,
		`{"t":0.2,"dir":"agent->client","read":{"kind":"write-target","path":"/p/f","args":{"maxBytes":1},"answer":{"Path":"/p/f","Exists":false}}}`,
		`{"t":0.2,"dir":"agent->client","read":{"kind":"saved-output","path":"/p/f","error":"gone"}}`,
		`{"t":0.3,"dir":"client->agent","msg":{},"src":3,"timer":true}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"t":0.2,"dir":"agent->client","read":{"kind":"k","path":"p","answer":1,"error":"x"}}`,
		`hello`,
		`{"t":1,"dir":"agent->client","text":" {\"a\":1} ","eol":false,"out":["",{"title":"é"}]}`,
		`{"t":1,"dir":"agent->client","b64":"/wAK"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := parseRecord(line)
		if err != nil {
			return
		}
		redacted := appendRedacted(nil, rec)
		red, err := parseRecord(redacted[:len(redacted)-1])
		require.NoError(t, err, "a redacted record does not read: %s", redacted)
		shape := func(r Record) []any {
			return []any{r.T, r.Dir, r.HasLine, r.EOL, r.HasOut, len(r.Out), r.Src, r.Timer, r.Read == nil, r.Conn == nil}
		}
		require.Equal(t, shape(rec), shape(red), "redacted: %s", redacted)
		if rec.Read == nil {
			return
		}
		again, err := parseRead(appendRead(nil, *rec.Read)[len(`"read":`):])
		require.NoError(t, err, "a read record written back does not read")
		// Compared as text: a nil and an empty JSON value are the same record.
		readText := func(a *DiskAnswer) [5]string {
			return [5]string{a.Kind, a.Path, string(a.Args), string(a.Answer), a.Err}
		}
		require.Equal(t, readText(rec.Read), readText(again), "written back differently")
	})
}
