package mockmodel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sseEvent is one parsed Server-Sent Events frame.
type sseEvent struct {
	Type string
	Data map[string]any
}

// post sends body to url and parses the SSE stream of the reply.
func post(t *testing.T, url, body string) []sseEvent {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		require.FailNowf(t, "POST failed", "%s: %s %q: %s", url, resp.Status, resp.Header.Get("Content-Type"), b)
	}
	var events []sseEvent
	sc := bufio.NewScanner(resp.Body)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.Type = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data), "event %s data", ev.Type)
		case line == "":
			assert.Equal(t, ev.Type, ev.Data["type"], "event %q carries data type %v", ev.Type, ev.Data["type"])
			events = append(events, ev)
			ev = sseEvent{}
		default:
			require.FailNowf(t, "unexpected SSE line", "%q", line)
		}
	}
	require.NoError(t, sc.Err())
	return events
}

func types(events []sseEvent) string {
	var b bytes.Buffer
	for i, e := range events {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(e.Type)
	}
	return b.String()
}

// field walks nested maps: field(m, "item", "arguments").
func field(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}
