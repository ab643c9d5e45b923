package live

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

// The live page shows a line a filter held as `view` shows it in the
// recorded trace: the line received, passed late, unchanged or changed
// (what left in its place, made from it).
func TestTheLivePageShowsAHeldLineAsTheViewDoes(t *testing.T) {
	for _, held := range []string{"hold", "rewrite"} {
		t.Run(held, func(t *testing.T) { showsAHeldLineAsTheViewDoes(t, held) })
	}
}

func showsAHeldLineAsTheViewDoes(t *testing.T, held string) {
	received := `{"t":0.1,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"a"}}
{"t":0.2,"dir":"agent->client","text":"a log line"}
{"t":0.3,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"` + held + `"}}
{"t":0.4,"dir":"client->agent","msg":{"jsonrpc":"2.0","method":"b"}}
{"t":0.5,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"release"}}
`
	chain := filters.NewChain(capabilities.New(), &chaintest.Holding{})
	var recorded bytes.Buffer
	info := trace.ConnectionInfo{Agent: []string{"agent"}}
	rec := trace.NewRecorder(&recorded, time.Time{})
	require.NoError(t, rec.Begin(info))
	tap := NewTap(time.Time{}, info, 1<<30)
	page := newPage("held", []string{"holding"}, tap.q, nil)
	require.NoError(t, trace.Replay(context.Background(), trace.NewReader(strings.NewReader(received)), func(int) trace.Connection {
		return trace.Connection{Chain: chain, Sinks: []trace.Sink{recorderSink{rec}, tapSink{tap}}}
	}))
	require.NoError(t, rec.Flush())
	assert.Equal(t, 2, strings.Count(recorded.String(), `"held":true`))
	page.run(t.Context())
	live, _, _, ended := page.latest()
	require.True(t, ended)

	want, err := view.Build(context.Background(), &recorded, view.Options{Name: "held"})
	require.NoError(t, err)
	var got view.Data
	require.NoError(t, json.Unmarshal(live, &got))
	var srcs []int
	for _, m := range got.Messages {
		if m.Side == "a" {
			assert.False(t, m.Timer)
			srcs = append(srcs, m.Src)
		}
	}
	assert.Equal(t, []int{0, 3, 1, 2, 4}, srcs, "each held line made from itself")
	assert.Equal(t, held == "rewrite", strings.Contains(string(live), `rewritten`), "what left is shown")
	got.Live, got.Filters = nil, want.Filters
	wantJSON, err := view.EncodeData(want)
	require.NoError(t, err)
	gotJSON, err := view.EncodeData(&got)
	require.NoError(t, err)
	assert.JSONEq(t, string(wantJSON), string(gotJSON))
}
