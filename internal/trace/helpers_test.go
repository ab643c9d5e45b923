package trace

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// replayInto replays the trace in r through chain (nil: no filters), every
// connection of it, writes what each side received to out (nil: nowhere),
// and hands it to more.
func replayInto(chain *filters.Chain, r io.Reader, out io.Writer, more ...Sink) error {
	var sinks []Sink
	if out != nil {
		sinks = append(sinks, NewDelivered(out, false))
	}
	sinks = append(sinks, more...)
	return Replay(context.Background(), NewReader(r), func(int) Connection {
		return Connection{Chain: chain, Sinks: sinks}
	})
}

// relayOnce pumps in through a connection of r in direction d and returns
// what the receiving side got.
func relayOnce(t testing.TB, r *proxy.Relay, d acp.Direction, in io.Reader) []byte {
	t.Helper()
	var toAgent, toClient bytes.Buffer
	c := r.Open(&toAgent, &toClient)
	require.NoError(t, c.Pump(d, in))
	if d == acp.ClientToAgent {
		return toAgent.Bytes()
	}
	return toClient.Bytes()
}
