package capabilities

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClientCapabilities(t *testing.T) {
	cases := []struct {
		name   string
		params string
		want   Client
	}{
		{"zed", `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}},"clientInfo":{"name":"zed"}}`,
			Client{ProtocolVersion: 1, TerminalOutput: true, Terminal: true, ReadTextFile: true, WriteTextFile: true, Name: "zed"}},
		{"delta variant", `{"protocolVersion":1,"clientCapabilities":{"_meta":{"terminal_output_delta":true}}}`,
			Client{ProtocolVersion: 1, TerminalOutputDelta: true}},
		{"only true counts", `{"protocolVersion":1,"clientCapabilities":{"_meta":{"terminal_output":"yes"}}}`,
			Client{ProtocolVersion: 1}},
		{"v2 draft names", `{"protocolVersion":2,"capabilities":{"terminal":true,"_meta":{"terminal_output":true}}}`,
			Client{ProtocolVersion: 2, Terminal: true, TerminalOutput: true}},
		{"unknown shapes read as nothing advertised", `{"protocolVersion":1,"clientCapabilities":{"fs":"all","_meta":[]}}`,
			Client{ProtocolVersion: 1}},
		{"no capabilities", `{"protocolVersion":1}`, Client{ProtocolVersion: 1}},
	}
	for _, c := range cases {
		n := New()
		n.ObserveRequest("initialize", []byte("0"), []byte(c.params))
		got, ok := n.Client()
		require.True(t, ok, c.name)
		got.Raw = nil
		assert.Equal(t, c.want, got, c.name)
		assert.Equal(t, c.want.TerminalOutput || c.want.TerminalOutputDelta, got.SpeaksTerminalOutput(), c.name)
	}
}

func TestAgentAnswerAndSessions(t *testing.T) {
	n := New()
	_, ok := n.Agent()
	assert.False(t, ok, "nothing negotiated yet")

	n.ObserveRequest("initialize", []byte(`"a"`), []byte(`{"protocolVersion":1}`))
	n.ObserveRequest("session/new", []byte(`7`), []byte(`{"cwd":"/w","mcpServers":[]}`))
	n.ObserveRequest("session/new", []byte(`8`), []byte(`{"cwd":"/failed"}`))
	n.ObserveRequest("session/load", []byte(`9`), []byte(`{"sessionId":"old","cwd":"/o"}`))
	assert.True(t, n.Pending())

	n.ObserveResponse([]byte(`"a"`), []byte(`{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"codex-acp","version":"0.16.0"}}`))
	n.ObserveResponse([]byte(`7`), []byte(`{"sessionId":"S"}`))
	n.ObserveResponse([]byte(`8`), nil) // an error response
	n.ObserveResponse([]byte(`404`), []byte(`{"sessionId":"stray"}`))

	a, ok := n.Agent()
	require.True(t, ok)
	assert.Equal(t, Agent{ProtocolVersion: 1, Name: "codex-acp", Version: "0.16.0", Raw: []byte(`{"loadSession":true}`)}, a)
	s, ok := n.Session("S")
	require.True(t, ok)
	assert.Equal(t, "/w", s.Cwd)
	s, ok = n.Session("old")
	require.True(t, ok)
	assert.Equal(t, "/o", s.Cwd)
	_, ok = n.Session("stray")
	assert.False(t, ok)
	assert.True(t, n.Pending(), "the load's answer is still to come")
}
