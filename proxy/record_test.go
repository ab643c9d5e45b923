package proxy_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

func TestRecordAndReplayRoundTrip(t *testing.T) {
	for _, chain := range []*filters.Chain{nil, filters.NewChain(capabilities.New(), proxy.ViewingFilter)} {
		recordAndReplay(t, chain)
	}
}

// recordAndReplay records the corpus through chain (which must not change
// it) and checks the trace replays to itself and holds the stream.
func recordAndReplay(t *testing.T, chain *filters.Chain) {
	in := proxy.Corpus(t)
	var recorded bytes.Buffer
	r := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{trace.NewRecorder(&recorded, time.Now())}}
	got := proxy.RelayOnce(t, r, acp.AgentToClient, bytes.NewReader(in))
	require.Equal(t, string(in), string(got))

	// Replaying the trace through no filters gives the trace back, and the
	// lines it holds are the stream.
	var out bytes.Buffer
	sinks := []trace.Sink{trace.NewDelivered(&out, false)}
	require.NoError(t, trace.Replay(context.Background(), trace.NewReader(bytes.NewReader(recorded.Bytes())), func(int) trace.Connection {
		return trace.Connection{Sinks: sinks}
	}))
	assert.Equal(t, recorded.String(), out.String())
	var lines bytes.Buffer
	for rec, err := range trace.NewReader(&out).All() {
		require.NoError(t, err)
		lines.Write(rec.Line)
		if rec.EOL {
			lines.WriteByte('\n')
		}
	}
	assert.Equal(t, string(in), lines.String())
}
