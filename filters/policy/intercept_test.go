package policy

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// intercepting is a relay whose client's initialize carries clientCaps.
func intercepting(t *testing.T, clientCaps string) (*relay, []chaintest.Sent) {
	r := &relay{t: t, cwd: session(t)}
	r.f = &Filter{Policy: mustParse(t, starter), OnDecision: func(e Event) { r.events = append(r.events, e) }}
	r.chain = filters.NewChain(capabilities.New(), r.f)
	r.chain.OnNote = func(n filters.Note) { r.notes = append(r.notes, n) }
	init := r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":`+clientCaps+`}}`)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"agent","version":"1"}}}`)
	r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+string(rawjson.Quote(r.cwd))+`,"mcpServers":[]}}`)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`)
	r.events, r.notes = nil, nil
	return r, init
}

// interceptRequest is the RFD's request at phase for a shell call running command.
func interceptRequest(id int, phase, command string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_agentclientprotocol.com/tool/intercept","params":{"sessionId":"s1","phase":%q,"toolCall":{"toolCallId":"call_%d","name":"shell","kind":"execute","rawInput":{"command":%s},"status":"pending"}}}`,
		id, phase, id, rawjson.Quote(command))
}

// With a policy, the proxy offers the agent the checkpoint before each tool call, whatever
// else the client advertises, and keeps what the client advertised itself.
func TestInterceptIsAdvertisedToTheAgent(t *testing.T) {
	for _, c := range []struct{ client, agentGets string }{
		{`{}`, `"clientCapabilities":{"_meta":{"agentclientprotocol.com":{"toolInterception":{"before":true}}}}`},
		{`{"fs":{"readTextFile":true},"_meta":{"terminal_output":true}}`,
			`"clientCapabilities":{"fs":{"readTextFile":true},"_meta":{"terminal_output":true,"agentclientprotocol.com":{"toolInterception":{"before":true}}}}`},
		{`{"_meta":{"agentclientprotocol.com":{"toolInterception":{"after":true}}}}`,
			`"clientCapabilities":{"_meta":{"agentclientprotocol.com":{"toolInterception":{"after":true,"before":true}}}}`},
	} {
		_, init := intercepting(t, c.client)
		require.Len(t, init, 1, c.client)
		assert.Contains(t, init[0].Raw, c.agentGets)
	}
	// a client that intercepts before itself: its initialize goes on as it is
	_, init := intercepting(t, `{"_meta":{"agentclientprotocol.com":{"toolInterception":{"before":true,"after":true}}}}`)
	assert.True(t, init[0].Original)
}

// At the checkpoint the proxy answers for the policy: allow, a replaced (failed) result for a
// deny, stop for a stop, and allow for what it asks when the client does not intercept (there
// would be no checkpoint without the proxy); the call is then never marked as run unasked.
func TestInterceptAnswersByThePolicy(t *testing.T) {
	r, _ := intercepting(t, `{}`)
	for _, c := range []struct {
		command, answer string
		action          Action
		bound           bool
	}{
		{"npm test", `{"jsonrpc":"2.0","id":7,"result":{"action":"allow"}}`, Allow, true},
		{"git push origin main", `{"jsonrpc":"2.0","id":7,"result":{"action":"replace","result":{"status":"failed","content":[{"type":"content","content":{"type":"text","text":"acp-proxy: denied by the policy (line 2: deny  Bash(git push:*)): git push origin main"}}]}}}`, Deny, true},
		{"rm -rf build", `{"jsonrpc":"2.0","id":7,"result":{"action":"stop"}}`, Stop, true},
		{"make", `{"jsonrpc":"2.0","id":7,"result":{"action":"allow"}}`, Ask, false},
	} {
		r.events = nil
		out := r.send(acp.AgentToClient, interceptRequest(7, "before", c.command))
		assert.Equal(t, []chaintest.Sent{{Dir: acp.ClientToAgent, Raw: c.answer}}, out, c.command)
		require.Len(t, r.events, 1)
		assert.Equal(t, "intercept", r.events[0].Where)
		assert.Equal(t, c.action, r.events[0].Decision.Action, c.command)
		assert.Equal(t, c.bound, r.events[0].Bound, c.command)
		assert.Equal(t, "call_7", r.events[0].ToolCall)
		// its end is not a call run without asking
		r.events = nil
		r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_7","status":"completed"}}}`)
		assert.Empty(t, r.events, c.command)
		r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_7","status":"pending"}}}`)
	}
	assert.Equal(t, map[string]int64{"intercept allow": 1, "intercept deny": 1, "intercept stop": 1, "intercept ask": 1}, r.f.Counts())
}

// A client that intercepts itself gets what the policy allows or asks, and may still stop it (a
// policy never widens what the client allows); what the policy denies or stops never reaches it.
// The after phase is the client's.
func TestInterceptWithAClientThatIntercepts(t *testing.T) {
	r, _ := intercepting(t, `{"_meta":{"agentclientprotocol.com":{"toolInterception":{"before":true,"after":true}}}}`)
	for _, command := range []string{"npm test", "make"} {
		line := interceptRequest(8, "before", command)
		assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, r.send(acp.AgentToClient, line), command)
	}
	r.events = nil
	r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":8,"result":{"action":"stop"}}`)
	require.Len(t, r.events, 1)
	assert.Equal(t, "stop", r.events[0].User, "the client's answer is audited")

	out := r.send(acp.AgentToClient, interceptRequest(9, "before", "git push"))
	require.Len(t, out, 1)
	assert.Equal(t, acp.ClientToAgent, out[0].Dir)
	assert.Contains(t, out[0].Raw, `"action":"replace"`)

	after := interceptRequest(10, "after", "git push")
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: after, Original: true}}, r.send(acp.AgentToClient, after))
}

// Fail closed: a request the policy cannot read is answered with an error, which the agent must
// not cross, unless the client intercepts and can decide it.
func TestInterceptUnreadableFailsClosed(t *testing.T) {
	bad := `{"jsonrpc":"2.0","id":11,"method":"_agentclientprotocol.com/tool/intercept","params":{"sessionId":"s1","phase":"before","toolCall":"npm test"}}`
	noCall := `{"jsonrpc":"2.0","id":12,"method":"_agentclientprotocol.com/tool/intercept","params":{"sessionId":"s1","phase":"before"}}`
	r, _ := intercepting(t, `{}`)
	out := r.send(acp.AgentToClient, bad)
	require.Len(t, out, 1)
	assert.Contains(t, out[0].Raw, `{"jsonrpc":"2.0","id":11,"error":{"code":-32010,"message":"acp-proxy: the policy cannot decide this request: the request cannot be read`)
	out = r.send(acp.AgentToClient, noCall)
	require.Len(t, out, 1)
	assert.Contains(t, out[0].Raw, `"id":12,"error":{"code":-32010,"message":"acp-proxy: the policy cannot decide this request: the request names no tool call"}`)

	r, _ = intercepting(t, `{"_meta":{"agentclientprotocol.com":{"toolInterception":{"before":true}}}}`)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: bad, Original: true}}, r.send(acp.AgentToClient, bad))
}

// A request that names no kind of tool takes it from the updates that announced the call.
func TestInterceptKnowsTheCallFromItsUpdates(t *testing.T) {
	r, _ := intercepting(t, `{}`)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c9","title":"Write","kind":"edit","status":"pending"}}}`)
	out := r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":13,"method":"_agentclientprotocol.com/tool/intercept","params":{"sessionId":"s1","phase":"before","toolCall":{"toolCallId":"c9","name":"write","rawInput":{"file_path":"/etc/passwd"}}}}`)
	require.Len(t, out, 1)
	assert.Contains(t, out[0].Raw, `"action":"replace"`, "an edit outside the session's directory: deny Edit(../**)")
}
