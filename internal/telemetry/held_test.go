package telemetry

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// holdingConnections relays in from the agent through a Holding filter, and
// returns the integer attributes of each connection's span (at least one).
func holdingConnections(t *testing.T, in string) []map[string]int64 {
	t.Helper()
	p, exp := memProvider(nil)
	chain := filters.NewChain(capabilities.New(), &chaintest.Holding{})
	tap := NewTap(p.NewConn(ConnInfo{Agent: []string{"codex-acp"}, Chain: chain}), nil)
	relay := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}
	c := relay.Open(&bytes.Buffer{}, &bytes.Buffer{})
	require.NoError(t, c.Pump(a2c, strings.NewReader(in)))
	require.NoError(t, c.Pump(c2a, strings.NewReader("")))
	require.NoError(t, p.ForceFlush(context.Background()))
	var conns []map[string]int64
	for _, s := range exp.GetSpans() {
		if s.Name == "acp.connection" {
			conns = append(conns, intAttributes(s.Attributes))
		}
	}
	require.NotEmpty(t, conns)
	return conns
}

// intAttributes are attrs by key, as integers.
func intAttributes(attrs []attribute.KeyValue) map[string]int64 {
	a := map[string]int64{}
	for _, kv := range attrs {
		a[string(kv.Key)] = kv.Value.AsInt64()
	}
	return a
}

// A line a filter holds and sends on later is counted once after the
// filters, as passed: the connection's figures after are those before.
func TestAHeldLineIsCountedOnceAsPassed(t *testing.T) {
	in := `{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"hold"}` + "\na log line\n" + `{"jsonrpc":"2.0","method":"release"}` + "\n" + `{"jsonrpc":"2.0","method":"hold","last":1}` + "\n"
	for _, a := range holdingConnections(t, in) {
		assert.EqualValues(t, 5, a["acp.agent->client.messages_before"])
		assert.EqualValues(t, 5, a["acp.agent->client.messages_after"])
		assert.Equal(t, a["acp.agent->client.bytes_before"], a["acp.agent->client.bytes_after"])
	}
}

// A held line that leaves changed is counted once after the filters, as
// what left in its place: not the line dropped and a line added.
func TestAHeldLineLeavingChangedIsCountedOnce(t *testing.T) {
	in := `{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"rewrite"}` + "\n" + `{"jsonrpc":"2.0","method":"hold"}` + "\n" +
		`{"jsonrpc":"2.0","method":"release"}` + "\n" + `{"jsonrpc":"2.0","method":"rewrite","last":1}` + "\n"
	for _, a := range holdingConnections(t, in) {
		assert.EqualValues(t, 5, a["acp.agent->client.messages_before"])
		assert.EqualValues(t, 5, a["acp.agent->client.messages_after"])
		assert.Equal(t, a["acp.agent->client.bytes_before"]+2*int64(len("rewritten")-len("rewrite")), a["acp.agent->client.bytes_after"])
	}
}
