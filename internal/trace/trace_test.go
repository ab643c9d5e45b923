package trace

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record's JSON flag says its line came as "msg", which the reader
// validated; a line that came as text or base64 may be anything.
func TestTraceRecordSaysWhichLinesAreValidJSON(t *testing.T) {
	trace := `{"t":0.1,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1}}
{"t":0.2,"dir":"client->agent","text":"{\"jsonrpc\":"}
{"t":0.3,"dir":"client->agent","b64":"e30="}
`
	tr := NewReader(strings.NewReader(trace))
	for _, want := range []bool{true, false, false} {
		rec, err := tr.Next()
		require.NoError(t, err)
		assert.Equal(t, want, rec.JSON, "%s", rec.Line)
	}
}

func TestMalformedTracesNameTheLine(t *testing.T) {
	cases := map[string]string{
		"not json":        "{\"t\":0,\"dir\":\"client->agent\",\"msg\":{}}\nnope\n",
		"missing dir":     "{\"t\":0,\"msg\":{}}\n",
		"bad direction":   "{\"t\":0,\"dir\":\"sideways\",\"msg\":{}}\n",
		"negative time":   "{\"t\":-1,\"dir\":\"client->agent\",\"msg\":{}}\n",
		"no line":         "{\"t\":0,\"dir\":\"client->agent\"}\n",
		"bad base64":      "{\"t\":0,\"dir\":\"client->agent\",\"b64\":\"%%%\"}\n",
		"truncated value": "{\"t\":0,\"dir\":\"client->agent\",\"msg\":{\"a\":}\n",
	}
	for name, trace := range cases {
		err := replayInto(nil, strings.NewReader(trace), nil)
		var te *Error
		require.ErrorAs(t, err, &te, name)
		assert.Equal(t, strings.Count(trace, "\n"), te.Line, name)
	}
}

// A replay stops when its context is done, before the next record.
func TestReplayStopsWhenItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	trace := "{\"t\":0.1,\"dir\":\"client->agent\",\"msg\":{\"n\":1}}\n"
	var out bytes.Buffer
	err := Replay(ctx, NewReader(strings.NewReader(trace)), func(int) Connection {
		return Connection{Sinks: []Sink{NewDelivered(&out, false)}}
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, out.String())
}
