package capabilities

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
)

// request has n observe the client's request method with raw JSON id and params.
func request(n *Negotiated, method, id, params string) {
	n.Observe(acp.NewMessage(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+`}`), time.Time{}))
}

// respond has n observe the agent's response to id: result, or an error when result is "".
func respond(n *Negotiated, id, result string) *acp.Message {
	line := `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
	if result == "" {
		line = `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"failed"}}`
	}
	m := acp.NewMessage(acp.AgentToClient, []byte(line), time.Time{})
	n.Observe(m)
	return m
}

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
		// Keys are read exactly, as the agents read them: another case is another key.
		{"Terminal is not terminal", `{"protocolVersion":1,"clientCapabilities":{"Terminal":true}}`, Client{ProtocolVersion: 1}},
		{"FS is not fs", `{"protocolVersion":1,"clientCapabilities":{"FS":{"readTextFile":true},"fs":{"WriteTextFile":true}}}`, Client{ProtocolVersion: 1}},
		{"ClientCapabilities is not clientCapabilities", `{"protocolVersion":1,"ClientCapabilities":{"terminal":true},"clientInfo":{"Name":"zed"}}`, Client{ProtocolVersion: 1}},
		{"a capability twice is absent", `{"protocolVersion":1,"clientCapabilities":{"terminal":true,"terminal":true}}`, Client{ProtocolVersion: 1}},
		{"ProtocolVersion is not protocolVersion", `{"protocolVersion":0,"ProtocolVersion":1,"clientCapabilities":{}}`, Client{}},
	}
	for _, c := range cases {
		n := New()
		request(n, "initialize", "0", c.params)
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

	request(n, "initialize", `"a"`, `{"protocolVersion":1}`)
	request(n, "session/new", `7`, `{"cwd":"/w","mcpServers":[]}`)
	request(n, "session/new", `8`, `{"cwd":"/failed"}`)
	request(n, "session/load", `9`, `{"sessionId":"old","cwd":"/o"}`)
	assert.True(t, n.Loading("old"))

	respond(n, `"a"`, `{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"codex-acp","version":"0.16.0"}}`)
	respond(n, `7`, `{"sessionId":"S"}`)
	respond(n, `8`, "") // an error response
	respond(n, `404`, `{"sessionId":"stray"}`)

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
	assert.True(t, n.Loading("old"), "the load's answer is still to come")
}

func TestAgentKeysAreReadExactly(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		want         Agent
	}{
		{"exact", `{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"a","version":"1"}}`,
			Agent{ProtocolVersion: 1, Name: "a", Version: "1", Raw: []byte(`{"loadSession":true}`)}},
		{"AgentCapabilities is not agentCapabilities", `{"protocolVersion":1,"AgentCapabilities":{"loadSession":true}}`,
			Agent{ProtocolVersion: 1}},
		{"AgentInfo is not agentInfo", `{"protocolVersion":1,"AgentInfo":{"name":"a","version":"1"}}`,
			Agent{ProtocolVersion: 1}},
		{"Version is not version", `{"protocolVersion":1,"agentInfo":{"name":"a","Version":"1"}}`,
			Agent{ProtocolVersion: 1, Name: "a"}},
		{"PROTOCOLVERSION is not protocolVersion", `{"PROTOCOLVERSION":1}`, Agent{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := New()
			request(n, "initialize", `0`, `{"protocolVersion":1}`)
			respond(n, `0`, tc.result)
			a, ok := n.Agent()
			require.True(t, ok)
			assert.Equal(t, string(tc.want.Raw), string(a.Raw))
			a.Raw, tc.want.Raw = nil, nil
			assert.Equal(t, tc.want, a)
		})
	}
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
			request(n, "session/new", `1`, tc.params)
			respond(n, `1`, `{"sessionId":"S","SessionId":"T"}`)
			s, ok := n.Session("S")
			require.True(t, ok)
			assert.Equal(t, tc.cwd, s.Cwd)
			_, ok = n.Session("T")
			assert.False(t, ok)
		})
	}
	n := New()
	request(n, "initialize", `1`, `{"protocolVersion":1,"clientCapabilities":{"_meta":{"TERMINAL_OUTPUT":true}}}`)
	respond(n, `1`, `{"protocolVersion":1,"agentInfo":{"name":"OpenCode","Name":"codex-acp","version":"1"},"AgentInfo":{"name":"x"}}`)
	c, _ := n.Client()
	assert.False(t, c.TerminalOutput)
	a, _ := n.Agent()
	assert.Equal(t, "OpenCode", a.Name)
	request(n, "session/load", `2`, `{"sessionId":"L","sessionid":"M","cwd":"/l","CWD":"/"}`)
	s, _ := n.Session("L")
	assert.Equal(t, "/l", s.Cwd)
}

// FuzzObserveReadsKeysExactly: whatever the params, the session's directory the proxy records is
// the value of the one member named exactly "cwd", as the agents read it, or nothing; and the
// session whose turn a prompt's response ends is the one member named exactly "sessionId".
func FuzzObserveReadsKeysExactly(f *testing.F) {
	f.Add(`{"cwd":"/p","CWD":"/"}`, `{"sessionId":"S"}`)
	f.Add(`{"cwd":"/p","cwd":"/q"}`, `{"sessionId":"S","SESSIONID":"T"}`)
	f.Add(`{"\u0063wd":"/p","Cwd":1}`, `{"sessionId":"S"}`)
	f.Add(`{"sessionId":"S","SessionId":"T","prompt":[]}`, `{"sessionId":"S"}`)
	f.Fuzz(func(t *testing.T, params, result string) {
		if !json.Valid([]byte(params)) || !json.Valid([]byte(result)) {
			return // it would not make one valid message: the tracker never sees it
		}
		n := New()
		request(n, "session/new", `1`, params)
		respond(n, `1`, result)
		sid, sidOK := exactlyOnce(result, "sessionId")
		if !sidOK {
			return
		}
		cwd, cwdOK := exactlyOnce(params, "cwd")
		if s, ok := n.Session(sid); ok && s.Cwd != "" {
			require.True(t, cwdOK, "recorded cwd %q where there is no one exact member in %s", s.Cwd, params)
			require.Equal(t, cwd, s.Cwd, "in %s", params)
		}
		request(n, "session/prompt", `2`, params)
		if session, ended := n.TurnEnded(respond(n, `2`, `{"stopReason":"end_turn"}`)); ended {
			want, ok := exactlyOnce(params, "sessionId")
			require.True(t, ok, "a turn of %q ended where there is no one exact sessionId in %s", session, params)
			require.Equal(t, want, session, "in %s", params)
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
