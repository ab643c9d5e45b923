package capabilities

import (
	"encoding/json"
	"strings"
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

// The agents read keys exactly: a key in another case, or twice, is not the one they use.
func TestKeysAreReadExactly(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		cwd          string // the session's directory as the proxy records it
	}{
		{"exact", `{"cwd":"/p","mcpServers":[]}`, "/p"},
		{"another case is another key", `{"cwd":"/p","CWD":"/"}`, "/p"},
		{"only another case", `{"Cwd":"/"}`, ""},
		{"a key twice", `{"cwd":"/p","cwd":"/"}`, ""},
		{"escaped, the same key", `{"\u0063wd":"/p"}`, "/p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := New()
			n.ObserveRequest("session/new", []byte(`1`), []byte(tc.params))
			n.ObserveResponse([]byte(`1`), []byte(`{"sessionId":"S","SessionId":"T"}`))
			s, ok := n.Session("S")
			require.True(t, ok)
			assert.Equal(t, tc.cwd, s.Cwd)
			_, ok = n.Session("T")
			assert.False(t, ok)
		})
	}
	n := New()
	n.ObserveRequest("initialize", []byte(`1`), []byte(`{"protocolVersion":1,"clientCapabilities":{"_meta":{"TERMINAL_OUTPUT":true}}}`))
	n.ObserveResponse([]byte(`1`), []byte(`{"protocolVersion":1,"agentInfo":{"name":"OpenCode","Name":"codex-acp","version":"1"},"AgentInfo":{"name":"x"}}`))
	c, _ := n.Client()
	assert.False(t, c.TerminalOutput)
	a, _ := n.Agent()
	assert.Equal(t, "OpenCode", a.Name)
	n.ObserveRequest("session/load", []byte(`2`), []byte(`{"sessionId":"L","sessionid":"M","cwd":"/l","CWD":"/"}`))
	s, _ := n.Session("L")
	assert.Equal(t, "/l", s.Cwd)
}

// FuzzObserveReadsKeysExactly: whatever the params, the session's directory the proxy records is
// the value of the one member named exactly "cwd", as the agents read it, or nothing.
func FuzzObserveReadsKeysExactly(f *testing.F) {
	f.Add(`{"cwd":"/p","CWD":"/"}`, `{"sessionId":"S"}`)
	f.Add(`{"cwd":"/p","cwd":"/q"}`, `{"sessionId":"S","SESSIONID":"T"}`)
	f.Add(`{"\u0063wd":"/p","Cwd":1}`, `{"sessionId":"S"}`)
	f.Fuzz(func(t *testing.T, params, result string) {
		n := New()
		n.ObserveRequest("session/new", []byte(`1`), []byte(params))
		n.ObserveResponse([]byte(`1`), []byte(result))
		sid, sidOK := exactlyOnce(result, "sessionId")
		if !sidOK {
			return
		}
		cwd, cwdOK := exactlyOnce(params, "cwd")
		if s, ok := n.Session(sid); ok && s.Cwd != "" && (!cwdOK || s.Cwd != cwd) {
			t.Fatalf("recorded cwd %q; the one exact member is %q (%v) in %s", s.Cwd, cwd, cwdOK, params)
		}
	})
}

// exactlyOnce reports the string value of key when the object obj has exactly one member of
// that name, compared exactly.
func exactlyOnce(obj, key string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	count := 0
	var val string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", false
		}
		if tok == key {
			count++
			if json.Unmarshal(raw, &val) != nil {
				return "", false
			}
		}
	}
	if _, err := dec.Token(); err != nil || count != 1 {
		return "", false
	}
	return val, true
}
