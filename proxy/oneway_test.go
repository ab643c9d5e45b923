package proxy

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// clientOnly reads the client's messages only, and says which it saw.
type clientOnly struct{ saw []string }

func (*clientOnly) Name() string               { return "client-only" }
func (*clientOnly) Reads(d acp.Direction) bool { return d == acp.ClientToAgent }
func (f *clientOnly) Apply(m *filters.Message, _ filters.Emitter) error {
	f.saw = append(f.saw, m.Dir.String())
	return nil
}

// A direction no filter of the chain reads passes as without filters: the
// filter never sees it, its lines pass byte for byte, and the chain still
// records what the agent negotiates.
func TestADirectionNoFilterReadsSkipsTheChain(t *testing.T) {
	f := &clientOnly{}
	caps := capabilities.New()
	relay := &Relay{Chain: filters.NewChain(caps, f)}
	var toAgent, toClient bytes.Buffer
	conn := relay.Open(&toAgent, &toClient)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"
	out := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","version":"0.16.0"}}}` + "\n" + "not json\n"
	require.NoError(t, conn.Pump(acp.ClientToAgent, strings.NewReader(in)))
	require.NoError(t, conn.Pump(acp.AgentToClient, strings.NewReader(out)))
	assert.Equal(t, []string{"client->agent"}, f.saw)
	assert.Equal(t, in, toAgent.String())
	assert.Equal(t, out, toClient.String())
	agent, ok := caps.Agent()
	assert.True(t, ok)
	assert.Equal(t, "codex-acp", agent.Name)
	assert.True(t, relay.Chain.Runs(acp.ClientToAgent))
	assert.False(t, relay.Chain.Runs(acp.AgentToClient))
}

// The relay reads the clock once per read of its source: lines that one
// read brought arrived together, and are told to the taps with one time.
func TestLinesOfOneReadShareTheirTime(t *testing.T) {
	var reads int
	clock := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	var times []time.Time
	relay := &Relay{Taps: []Tap{timesTap{&times}}, Now: func() time.Time { reads++; return clock.Add(time.Duration(reads) * time.Second) }}
	conn := relay.Open(&bytes.Buffer{}, &bytes.Buffer{})
	require.NoError(t, conn.Pump(acp.AgentToClient, strings.NewReader("{}\n{}\n{}\n")))
	require.Len(t, times, 3)
	assert.Equal(t, []time.Time{times[0], times[0], times[0]}, times)
}

type timesTap struct{ times *[]time.Time }

func (t timesTap) Passed(p *Passage)                          { *t.times = append(*t.times, p.Time) }
func (timesTap) Added(acp.Direction, time.Time, []byte, bool) {}
func (timesTap) Released(*Passage)                            {}
func (timesTap) Long(acp.Direction) LongLine                  { return nil }
func (timesTap) End(acp.Direction) error                      { return nil }
