package telemetry

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// A line a filter holds and sends on later is counted once after the
// filters, as passed: the connection's figures after are those before.
func TestAHeldLineIsCountedOnceAsPassed(t *testing.T) {
	p, exp := memProvider(nil)
	chain := filters.NewChain(capabilities.New(), &chaintest.Holding{})
	tap := NewTap(p.NewConn(ConnInfo{Agent: []string{"codex-acp"}, Chain: chain}), nil)
	relay := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}
	in := `{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"hold"}` + "\na log line\n" + `{"jsonrpc":"2.0","method":"release"}` + "\n" + `{"jsonrpc":"2.0","method":"hold","last":1}` + "\n"
	c := relay.Open(&bytes.Buffer{}, &bytes.Buffer{})
	require.NoError(t, c.Pump(a2c, strings.NewReader(in)))
	require.NoError(t, c.Pump(c2a, strings.NewReader("")))
	require.NoError(t, p.ForceFlush(context.Background()))
	var seen bool
	for _, s := range exp.GetSpans() {
		if s.Name != "acp.connection" {
			continue
		}
		seen = true
		a := map[string]int64{}
		for _, kv := range s.Attributes {
			a[string(kv.Key)] = kv.Value.AsInt64()
		}
		assert.EqualValues(t, 5, a["acp.agent->client.messages_before"])
		assert.EqualValues(t, 5, a["acp.agent->client.messages_after"])
		assert.Equal(t, a["acp.agent->client.bytes_before"], a["acp.agent->client.bytes_after"])
	}
	assert.True(t, seen)
}

// A held line that leaves changed is counted once after the filters, as
// what left in its place: not the line dropped and a line added.
func TestAHeldLineLeavingChangedIsCountedOnce(t *testing.T) {
	p, exp := memProvider(nil)
	chain := filters.NewChain(capabilities.New(), &chaintest.Holding{})
	tap := NewTap(p.NewConn(ConnInfo{Agent: []string{"codex-acp"}, Chain: chain}), nil)
	relay := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}
	in := `{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"rewrite"}` + "\n" + `{"jsonrpc":"2.0","method":"hold"}` + "\n" +
		`{"jsonrpc":"2.0","method":"release"}` + "\n" + `{"jsonrpc":"2.0","method":"rewrite","last":1}` + "\n"
	c := relay.Open(&bytes.Buffer{}, &bytes.Buffer{})
	require.NoError(t, c.Pump(a2c, strings.NewReader(in)))
	require.NoError(t, c.Pump(c2a, strings.NewReader("")))
	require.NoError(t, p.ForceFlush(context.Background()))
	var seen bool
	for _, s := range exp.GetSpans() {
		if s.Name != "acp.connection" {
			continue
		}
		seen = true
		a := map[string]int64{}
		for _, kv := range s.Attributes {
			a[string(kv.Key)] = kv.Value.AsInt64()
		}
		assert.EqualValues(t, 5, a["acp.agent->client.messages_before"])
		assert.EqualValues(t, 5, a["acp.agent->client.messages_after"])
		assert.Equal(t, a["acp.agent->client.bytes_before"]+2*int64(len("rewritten")-len("rewrite")), a["acp.agent->client.bytes_after"])
	}
	assert.True(t, seen)
}
