package policy

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// grokInit is grok-build 1.0.41's initialize answer, as far as hooks go: no agentInfo, and its
// client hooks under agentCapabilities._meta.
const grokInit = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"_meta":{"x.ai/fs_notify":true,"x.ai/hooks":{"blockingEvents":["pre_tool_use","stop","subagent_stop"],"decisions":["deny","block"],"stopSignals":["continue","stopReason","additionalContext"]}}},"authMethods":[]}}`

// hooking is a relay before an agent that answers initialize with init, opened with the
// session/new params' _meta meta ("" for none); it returns what the agent got of session/new.
func hooking(t *testing.T, init, meta string, dryRun bool) (*relay, []chaintest.Sent) {
	r := &relay{t: t, cwd: session(t)}
	r.f = &Filter{Policy: mustParse(t, starter), DryRun: dryRun, OnDecision: func(e Event) { r.events = append(r.events, e) }}
	r.chain = filters.NewChain(capabilities.New(), r.f)
	r.chain.OnNote = func(n filters.Note) { r.notes = append(r.notes, n) }
	r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r.send(acp.AgentToClient, init)
	if meta != "" {
		meta = `,"_meta":` + meta
	}
	got := r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+string(rawjson.Quote(r.cwd))+`,"mcpServers":[]`+meta+`}}`)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`)
	r.events, r.notes = nil, nil
	return r, got
}

// hookRun is grok-build 1.0.41's x.ai/hooks/run request for callback cb, before tool runs
// with input.
func hookRun(id int, cb, tool, input string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"_x.ai/hooks/run","params":{"hookCallbackId":%q,"hookEventName":"pre_tool_use","sessionId":"s1","cwd":"/p","workspaceRoot":"/p","timestamp":"2026-11-29T09:30:12.608311461+00:00","transcriptPath":"/h/updates.jsonl","permissionMode":"default","toolName":%q,"toolUseId":"call_%d","toolInput":%s,"toolInputTruncated":false}}`,
		id, cb, tool, id, input)
}

// The proxy registers its pre_tool_use callback in session/new, beside the client's own
// callbacks, under a name no callback of the client's has; an agent that does not advertise the
// hooks, and a dry run, get session/new as the client sent it.
func TestHookIsRegisteredWithAnAgentThatRunsThem(t *testing.T) {
	for _, c := range []struct{ meta, want string }{
		{"", `"_meta":{"x.ai/hooks":{"pre_tool_use":[{"matcher":"*","hookCallbackIds":["acp-proxy.policy"]}]}}`},
		{`{"traceparent":"00-x"}`, `"_meta":{"traceparent":"00-x","x.ai/hooks":{"pre_tool_use":[{"matcher":"*","hookCallbackIds":["acp-proxy.policy"]}]}}`},
		{`{"x.ai/hooks":{"stop":[{"hookCallbackIds":["s"]}]}}`,
			`"_meta":{"x.ai/hooks":{"stop":[{"hookCallbackIds":["s"]}],"pre_tool_use":[{"matcher":"*","hookCallbackIds":["acp-proxy.policy"]}]}}`},
		{`{"x.ai/hooks":{"pre_tool_use":[ ]}}`, `"_meta":{"x.ai/hooks":{"pre_tool_use":[{"matcher":"*","hookCallbackIds":["acp-proxy.policy"]}]}}`},
		{`{"x.ai/hooks":{"pre_tool_use":[{"matcher":"Bash","hookCallbackIds":["acp-proxy.policy"]}]}}`,
			`"_meta":{"x.ai/hooks":{"pre_tool_use":[{"matcher":"Bash","hookCallbackIds":["acp-proxy.policy"]},{"matcher":"*","hookCallbackIds":["acp-proxy.policy#2"]}]}}`},
	} {
		_, got := hooking(t, grokInit, c.meta, false)
		require.Len(t, got, 1, c.meta)
		assert.Contains(t, got[0].Raw, c.want, c.meta)
	}
	plain := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"agent","version":"1"}}}`
	for _, c := range []struct {
		init   string
		dryRun bool
	}{{plain, false}, {grokInit, true}} {
		_, got := hooking(t, c.init, "", c.dryRun)
		require.Len(t, got, 1)
		assert.True(t, got[0].Original, "session/new goes on unchanged")
	}
	// a client's pre_tool_use that is not a list: unchanged (permission requests still bind)
	_, got := hooking(t, grokInit, `{"x.ai/hooks":{"pre_tool_use":{}}}`, false)
	assert.True(t, got[0].Original)
}

// session/load and session/resume take the hooks as session/new does.
func TestHookIsRegisteredOnLoadAndResume(t *testing.T) {
	r, _ := hooking(t, grokInit, "", false)
	for _, method := range []string{"session/load", "session/resume"} {
		got := r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":3,"method":"`+method+`","params":{"sessionId":"s0","cwd":`+string(rawjson.Quote(r.cwd))+`,"mcpServers":[]}}`)
		require.Len(t, got, 1, method)
		assert.Contains(t, got[0].Raw, `,"_meta":{"x.ai/hooks":{"pre_tool_use":[{"matcher":"*","hookCallbackIds":["acp-proxy.policy"]}]}}}`, method)
	}
}

// At the hook the proxy answers for the policy before the call runs, and before the agent asks
// anyone: a deny names the rule (grok shows it as "Hook denied: …" and fails the call), a stop
// also cancels the turn, and allow and ask take no decision: the agent goes on to its own
// permission flow, which the policy decides again.
func TestHookAnswersByThePolicy(t *testing.T) {
	r, _ := hooking(t, grokInit, "", false)
	outside := filepath.Join(filepath.Dir(r.cwd), "outside.txt")
	cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`
	for _, c := range []struct {
		tool, input string
		answer      []string
		action      Action
		bound       bool
	}{
		{"run_terminal_command", `{"command":"npm test","description":"d"}`, []string{`{}`}, Allow, false},
		{"run_terminal_command", `{"command":"git push origin main","description":"d"}`,
			[]string{`{"decision":"deny","reason":"acp-proxy: denied by the policy (line 2: deny  Bash(git push:*)): git push origin main"}`}, Deny, true},
		{"run_terminal_command", `{"command":"rm -rf build"}`,
			[]string{`{"decision":"deny","reason":"acp-proxy: denied by the policy (line 4: stop  Bash(rm -rf:*)): rm -rf build"}`, cancel}, Stop, true},
		{"run_terminal_command", `{"command":"make"}`, []string{`{}`}, Ask, false},
		{"write", `{"file_path":` + string(rawjson.Quote(outside)) + `,"content":"x"}`,
			[]string{`{"decision":"deny","reason":"acp-proxy: denied by the policy (line 3: deny  Edit(../**)): ` + outside + `"}`}, Deny, true},
		{"monitor", `{"command":"git push","description":"m"}`,
			[]string{`{"decision":"deny","reason":"acp-proxy: denied by the policy (line 2: deny  Bash(git push:*)): git push"}`}, Deny, true},
		{"read_file", `{"target_file":"src/a.go"}`, []string{`{}`}, Ask, false},
		{"todo_write", `{"todos":[]}`, []string{`{}`}, Ask, false},
	} {
		r.events = nil
		out := r.send(acp.AgentToClient, hookRun(7, hookCallbackID, c.tool, c.input))
		var want []chaintest.Sent
		for i, a := range c.answer {
			if i == 0 {
				a = `{"jsonrpc":"2.0","id":7,"result":` + a + `}`
			}
			want = append(want, chaintest.Sent{Dir: acp.ClientToAgent, Raw: a})
		}
		assert.Equal(t, want, out, c.input)
		require.Len(t, r.events, 1, c.input)
		assert.Equal(t, "hook", r.events[0].Where)
		assert.Equal(t, c.action, r.events[0].Decision.Action, c.input)
		assert.Equal(t, c.bound, r.events[0].Bound, c.input)
		assert.Equal(t, "call_7", r.events[0].ToolCall)
		if c.bound { // a refused call's end is not a call run without asking
			r.events = nil
			r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_7","title":"run_terminal_command","rawInput":`+c.input+`}}}`)
			r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_7","status":"failed","content":[{"type":"content","content":{"type":"text","text":"Hook denied: x"}}]}}}`)
			assert.Empty(t, r.events, c.input)
		}
	}
	assert.Equal(t, map[string]int64{"hook allow": 1, "hook deny": 3, "hook stop": 1, "hook ask": 3}, r.f.Counts())
}

// The client's own callbacks are the client's: their requests pass unchanged, as every request
// does when the proxy registered nothing.
func TestHookOfTheClientPasses(t *testing.T) {
	r, _ := hooking(t, grokInit, `{"x.ai/hooks":{"pre_tool_use":[{"matcher":"*","hookCallbackIds":["mine"]}]}}`, false)
	line := hookRun(8, "mine", "run_terminal_command", `{"command":"git push"}`)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, r.send(acp.AgentToClient, line))
	assert.Empty(t, r.events)

	plain := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"agent","version":"1"}}}`
	r, _ = hooking(t, plain, "", false)
	line = hookRun(9, hookCallbackID, "run_terminal_command", `{"command":"git push"}`)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, r.send(acp.AgentToClient, line))
}

// Fail closed: grok runs a call whose hook fails, and a client hook cannot make it ask, so a
// request of the proxy's callback that the policy cannot read is denied.
func TestHookUnreadableIsDenied(t *testing.T) {
	r, _ := hooking(t, grokInit, "", false)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":11,"method":"_x.ai/hooks/run","params":{"hookCallbackId":"acp-proxy.policy","hookEventName":"pre_tool_use","sessionId":"s1","toolName":7}}`,
		`{"jsonrpc":"2.0","id":11,"method":"_x.ai/hooks/run","params":{"hookCallbackId":"acp-proxy.policy","hookEventName":"pre_tool_use","sessionId":"s1"}}`,
		hookRun(11, hookCallbackID, "run_terminal_command", `{"description":"no command"}`),
	} {
		out := r.send(acp.AgentToClient, line)
		require.Len(t, out, 1, line)
		assert.Contains(t, out[0].Raw, `{"jsonrpc":"2.0","id":11,"result":{"decision":"deny","reason":"acp-proxy: denied by the policy: `, line)
	}
}

// A dry run (policy check) decides the proxy's hook requests of a recorded session and answers
// nothing.
func TestHookDryRun(t *testing.T) {
	r, _ := hooking(t, grokInit, "", true)
	line := hookRun(12, hookCallbackID, "run_terminal_command", `{"command":"git push"}`)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, r.send(acp.AgentToClient, line))
	require.Len(t, r.events, 1)
	assert.Equal(t, Deny, r.events[0].Decision.Action)
	assert.False(t, r.events[0].Bound)
}

// A stop rule at the hook cancels the turn, and grok, cancelled at once, announces the call and
// never ends it: the proxy ends it for the client, failed, naming the rule, after its tool_call.
// A call grok ends itself is left as it ends it.
func TestHookStopEndsTheCall(t *testing.T) {
	r, _ := hooking(t, grokInit, "", false)
	r.send(acp.AgentToClient, hookRun(7, hookCallbackID, "run_terminal_command", `{"command":"rm -rf build"}`))
	announce := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_7","title":"run_terminal_command","rawInput":{"command":"rm -rf build"}}}}`
	out := r.send(acp.AgentToClient, announce)
	require.Len(t, out, 2)
	assert.Equal(t, announce, out[0].Raw)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_7","status":"failed","content":[{"type":"content","content":{"type":"text","text":"acp-proxy: denied by the policy (line 4: stop  Bash(rm -rf:*)): rm -rf build"}}]}}}`, out[1].Raw)
	later := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_7","status":"failed"}}}`
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: later, Original: true}}, r.send(acp.AgentToClient, later))

	r.send(acp.AgentToClient, hookRun(8, hookCallbackID, "run_terminal_command", `{"command":"rm -rf build"}`))
	ended := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_8","status":"failed"}}}`
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: ended, Original: true}}, r.send(acp.AgentToClient, ended))
}
