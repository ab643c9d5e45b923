package policy

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// starter is the policy: allow npm test, deny git push and any write outside the
// session's directory, stop rm -rf, ask the rest.
const starter = `allow Bash(npm test)
deny  Bash(git push:*)
deny  Edit(../**)
stop  Bash(rm -rf:*)
`

// relay is a chain with the policy filter in a session whose directory is cwd, agent agent.
type relay struct {
	t      *testing.T
	chain  *filters.Chain
	f      *Filter
	events []Event
	notes  []filters.Note
	cwd    string
}

func newRelay(t *testing.T, text, agent string, dryRun bool) *relay {
	r := &relay{t: t, cwd: session(t)}
	r.f = &Filter{Policy: mustParse(t, text), DryRun: dryRun, OnDecision: func(e Event) { r.events = append(r.events, e) }}
	r.chain = filters.NewChain(capabilities.New(), r.f)
	r.chain.OnNote = func(n filters.Note) { r.notes = append(r.notes, n) }
	r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":`+string(rawjson.Quote(agent))+`,"version":"1"}}}`)
	r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+string(rawjson.Quote(r.cwd))+`,"mcpServers":[]}}`)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`)
	r.events, r.notes = nil, nil
	return r
}

func (r *relay) send(d acp.Direction, line string) []chaintest.Sent {
	r.t.Helper()
	return chaintest.Run(r.t, r.chain, d, line)
}

// permission is a session/request_permission of claude-agent-acp 0.101 for command.
func permission(id int, command string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"toolCall":{"toolCallId":"toolu_%d","name":"Bash","status":"pending","rawInput":{"command":%s,"description":"d"},"title":%s,"kind":"execute"},"options":[{"optionId":"allow-once","name":"Yes","kind":"allow_once"},{"optionId":"allow-with-updates","name":"Yes, and…","kind":"allow_always"},{"optionId":"reject","name":"No","kind":"reject_once"}],"sessionId":"s1"}}`,
		id, id, rawjson.Quote(command), rawjson.Quote(command))
}

func TestPermissionAllowAnswersAllowOnce(t *testing.T) {
	r := newRelay(t, starter, "@agentclientprotocol/claude-agent-acp", false)
	out := r.send(acp.AgentToClient, permission(0, "npm test"))
	require.Equal(t, []chaintest.Sent{{Dir: acp.ClientToAgent,
		Raw: `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow-once"}}}`}}, out,
		"answered with the allow-once option, never allow-with-updates; the user is not asked")
	require.Len(t, r.events, 1)
	assert.Equal(t, Allow, r.events[0].Decision.Action)
	assert.True(t, r.events[0].Bound)
	require.Len(t, r.notes, 1)
	assert.Equal(t, "allow (line 1) by policy", r.notes[0].Event)
	assert.Equal(t, "allow (line 1: allow Bash(npm test)): npm test", r.notes[0].Detail)
	assert.Equal(t, "toolu_0", r.notes[0].ToolCallID)
}

func TestPermissionDenyAnswersRejectAndTellsTheUser(t *testing.T) {
	r := newRelay(t, starter, "@agentclientprotocol/claude-agent-acp", false)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_3","title":"Terminal","kind":"execute","status":"pending"}}}`)
	out := r.send(acp.AgentToClient, permission(3, "git push origin main"))
	require.Len(t, out, 2)
	assert.Equal(t, chaintest.Sent{Dir: acp.ClientToAgent,
		Raw: `{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}`}, out[0])
	assert.Equal(t, acp.AgentToClient, out[1].Dir)
	assert.Contains(t, out[1].Raw, `"sessionUpdate":"tool_call_update","toolCallId":"toolu_3","status":"failed"`)
	assert.Contains(t, out[1].Raw, `denied by the policy (line 2: deny  Bash(git push:*)): git push origin main`)
}

func TestPermissionStopCancelsTheTurn(t *testing.T) {
	r := newRelay(t, starter, "claude", false)
	r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"toolu_4","title":"Terminal","kind":"execute","status":"pending"}}}`)
	out := r.send(acp.AgentToClient, permission(4, "npm test && rm -rf /"))
	require.Len(t, out, 3)
	assert.Contains(t, out[0].Raw, `"optionId":"reject"`)
	assert.Equal(t, chaintest.Sent{Dir: acp.ClientToAgent, Raw: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`}, out[2])
}

func TestPermissionAskForwardsUnchanged(t *testing.T) {
	r := newRelay(t, starter, "claude", false)
	for _, command := range []string{"npm test -- --watch", "eval npm test", "npm test | cat"} {
		line := permission(5, command)
		out := r.send(acp.AgentToClient, line)
		assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, out, command)
	}
	// the user's answer is audited beside the policy's decision
	r.events = nil
	out := r.send(acp.ClientToAgent, `{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}`)
	assert.True(t, out[0].Original)
	require.Len(t, r.events, 1)
	assert.Equal(t, "reject_once", r.events[0].User)
	assert.Equal(t, Ask, r.events[0].Decision.Action)
}

// TestPermissionNoAllowOnceOption: without an allow-once option the policy never picks an
// "always" one; the user decides.
func TestPermissionNoAllowOnceOption(t *testing.T) {
	r := newRelay(t, starter, "claude", false)
	line := `{"jsonrpc":"2.0","id":6,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t","kind":"execute","rawInput":{"command":"npm test"}},"options":[{"optionId":"always","kind":"allow_always","name":"Always"}]}}`
	out := r.send(acp.AgentToClient, line)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, out)
	require.Len(t, r.events, 1)
	assert.Equal(t, Ask, r.events[0].Decision.Action)
	assert.Equal(t, "the request has no allow-once option; npm test", r.events[0].Decision.Why)
}

// TestPermissionShapes: the command as each agent sends it.
func TestPermissionShapes(t *testing.T) {
	for _, tc := range []struct {
		agent, toolCall string
		want            string // the optionId answered, "" for forwarded
	}{
		{"codex-acp", `{"toolCallId":"c","kind":"execute","rawInput":{"command":["/bin/bash","-lc","git push"],"cwd":CWD}}`, "denied"},
		{"codex-acp", `{"toolCallId":"c","kind":"execute","rawInput":{"command":["/bin/bash","-lc","npm test"],"cwd":CWD}}`, "approved"},
		{"codex-acp", `{"toolCallId":"c","kind":"execute","rawInput":{"command":["/bin/bash","-lc","npm test"],"cwd":"/"}}`, ""},
		{"codex-acp", `{"toolCallId":"c","kind":"execute","rawInput":{"command":["./bash","-lc","npm test"],"cwd":CWD}}`, ""},
		{"@agentclientprotocol/codex-acp", `{"toolCallId":"c","kind":"execute","rawInput":{"command":"\"git push \"'$x'","cwd":CWD}}`, "denied"},
		{"OpenCode", `{"toolCallId":"c","kind":"execute","rawInput":{"command":"npm test"}}`, "approved"},
		{"gemini-cli", `{"toolCallId":"c","kind":"execute","title":"npm test"}`, ""},
		{"codex-acp", `{"toolCallId":"c","kind":"read","rawInput":{"command":["/bin/bash","-lc","cat .env | git push"],"cwd":CWD}}`, "denied"},
		{"codex-acp", `{"toolCallId":"c","kind":"search","rawInput":{"command":["/bin/bash","-lc","npm test"],"cwd":CWD}}`, "approved"},
		{"OpenCode", `{"toolCallId":"c","kind":"edit","locations":[{"path":"/etc/passwd"}]}`, "denied"},
		{"OpenCode", `{"toolCallId":"c","kind":"edit","rawInput":{"filepath":"a.txt"}}`, ""},
	} {
		r := newRelay(t, starter, tc.agent, false)
		tcall := strings.ReplaceAll(tc.toolCall, "CWD", string(rawjson.Quote(r.cwd)))
		line := `{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":` + tcall +
			`,"options":[{"optionId":"approved","kind":"allow_once","name":"Yes"},{"optionId":"denied","kind":"reject_once","name":"No"}]}}`
		out := r.send(acp.AgentToClient, line)
		if tc.want == "" {
			assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, out, tc.toolCall)
			continue
		}
		if assert.NotEmpty(t, out, tc.toolCall) {
			assert.Equal(t, `{"jsonrpc":"2.0","id":9,"result":{"outcome":{"outcome":"selected","optionId":"`+tc.want+`"}}}`, out[0].Raw, tc.toolCall)
		}
	}
}

// TestPermissionV2: a v2 request names its call under subject; the answer is the same.
func TestPermissionV2(t *testing.T) {
	r := newRelay(t, starter, "claude", false)
	line := `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","title":"git push","subject":{"type":"tool_call","toolCall":{"toolCallId":"toolu_1","rawInput":{"command":"git push"},"kind":"execute"}},"options":[{"optionId":"allow-once","kind":"allow_once","name":"Yes"},{"optionId":"reject","kind":"reject_once","name":"No"}]}}`
	out := r.send(acp.AgentToClient, line)
	require.NotEmpty(t, out)
	assert.Equal(t, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"reject"}}}`, out[0].Raw)
}

// TestClientRequests: what the agent asks the client to do is refused before the client acts.
func TestClientRequests(t *testing.T) {
	r := newRelay(t, starter, "OpenCode", false)
	outside := filepath.Join(filepath.Dir(r.cwd), "x.txt")
	inside := filepath.Join(r.cwd, "x.txt")
	for _, tc := range []struct {
		line   string
		denied bool
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"sessionId":"s1","path":` + string(rawjson.Quote(outside)) + `,"content":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"sessionId":"s1","path":` + string(rawjson.Quote(inside)) + `,"content":"x"}}`, false},
		{`{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s1","path":` + string(rawjson.Quote(outside)) + `}}`, false},
		{`{"jsonrpc":"2.0","id":7,"method":"terminal/create","params":{"sessionId":"s1","command":"git","args":["push"]}}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"terminal/create","params":{"sessionId":"s1","command":"bash","args":["-c","git push --force"]}}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"terminal/create","params":{"sessionId":"s1","command":"npm","args":["test"]}}`, false},
	} {
		out := r.send(acp.AgentToClient, tc.line)
		require.Len(t, out, 1, tc.line)
		if !tc.denied {
			assert.Equal(t, chaintest.Sent{Dir: acp.AgentToClient, Raw: tc.line, Original: true}, out[0])
			continue
		}
		assert.Equal(t, acp.ClientToAgent, out[0].Dir)
		assert.Contains(t, out[0].Raw, `{"jsonrpc":"2.0","id":7,"error":{"code":-32010,"message":"acp-proxy: denied by the policy, line `)
	}
}

// TestClientRequestUnreadable: a request the policy cannot read is refused, not carried out on
// its behalf.
func TestClientRequestUnreadable(t *testing.T) {
	r := newRelay(t, starter, "OpenCode", false)
	out := r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":8,"method":"fs/write_text_file","params":{"sessionId":"s1","path":5,"content":"x"}}`)
	require.Len(t, out, 1)
	assert.Equal(t, acp.ClientToAgent, out[0].Dir)
	assert.Contains(t, out[0].Raw, `{"jsonrpc":"2.0","id":8,"error":{"code":-32010,"message":"acp-proxy: denied by the policy: the request cannot be read: `)
}

// TestUnasked: a call the agent ran without asking is marked on its final update when a rule
// would have denied it; a stop rule cancels the turn.
func TestUnasked(t *testing.T) {
	r := newRelay(t, starter, "codex-acp", false)
	call := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"rm -rf build","kind":"execute","status":"in_progress","rawInput":{"command":["/bin/bash","-lc","rm -rf build"],"cwd":CWD}}}}`
	call = strings.ReplaceAll(call, "CWD", string(rawjson.Quote(r.cwd)))
	out := r.send(acp.AgentToClient, call)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: call, Original: true}}, out, "not ended: it may still ask")
	end := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"done"}}]}}}`
	out = r.send(acp.AgentToClient, end)
	require.Len(t, out, 2)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"done"}},{"type":"content","content":{"type":"text","text":"acp-proxy: ran without asking; the policy would have denied it (line 4: stop  Bash(rm -rf:*)): rm -rf build"}}],"title":"⚠ ran without asking, denied by policy line 4: rm -rf build"}}}`, out[0].Raw)
	assert.Equal(t, chaintest.Sent{Dir: acp.ClientToAgent, Raw: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`}, out[1])
	require.Len(t, r.events, 1)
	assert.Equal(t, "unasked", r.events[0].Where)
}

// TestUnaskedWithoutContent: a final update without content or title gets the title alone,
// the call's last known title after the mark; a content of [] gets the note as its one item.
func TestUnaskedWithoutContent(t *testing.T) {
	for _, tc := range []struct{ end, want string }{
		{`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed","title":"⚠ ran without asking, denied by policy line 2: push it"}`},
		{`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[ ]}`,
			`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"acp-proxy: ran without asking; the policy would have denied it (line 2: deny  Bash(git push:*)): git push"}}],"title":"⚠ ran without asking, denied by policy line 2: push it"}`},
	} {
		r := newRelay(t, starter, "OpenCode", false)
		r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"push it","kind":"execute","status":"pending","rawInput":{"command":"git push"}}}}`)
		out := r.send(acp.AgentToClient, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`+tc.end+`}}`)
		require.Len(t, out, 1)
		assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`+tc.want+`}}`, out[0].Raw)
	}
}

// TestAskedIsNotUnasked: a call whose permission was asked (before its tool_call, as codex 0.16
// does) is not reported as run without asking.
func TestAskedIsNotUnasked(t *testing.T) {
	r := newRelay(t, starter, "codex-acp", false)
	line := `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","kind":"execute","rawInput":{"command":["/bin/bash","-lc","ls"],"cwd":CWD}},"options":[{"optionId":"approved","kind":"allow_once","name":"Yes"}]}}`
	r.send(acp.AgentToClient, strings.ReplaceAll(line, "CWD", string(rawjson.Quote(r.cwd))))
	end := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}`
	out := r.send(acp.AgentToClient, end)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: end, Original: true}}, out)
	assert.Len(t, r.events, 1, "the permission's decision only")
}

// TestCallIDUsedAgain: an agent that numbers calls per turn uses an id again; the second call
// is another, asked or not as itself.
func TestCallIDUsedAgain(t *testing.T) {
	r := newRelay(t, starter, "codex-acp", false)
	call := func(status, command string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","kind":"execute","status":"` +
			status + `","rawInput":{"command":["/bin/bash","-lc",` + string(rawjson.Quote(command)) + `],"cwd":` + string(rawjson.Quote(r.cwd)) + `}}}}`
	}
	end := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed"}}}`
	r.send(acp.AgentToClient, strings.ReplaceAll(permission(0, "npm test"), "toolu_0", "call_1"))
	r.send(acp.AgentToClient, call("in_progress", "npm test"))
	r.send(acp.AgentToClient, end)
	require.Len(t, r.events, 1, "the first call was asked")
	r.send(acp.AgentToClient, call("in_progress", "git push"))
	out := r.send(acp.AgentToClient, end)
	require.Len(t, r.events, 2)
	assert.Equal(t, "unasked", r.events[1].Where)
	assert.Equal(t, Deny, r.events[1].Decision.Action)
	assert.Contains(t, out[0].Raw, "ran without asking, denied by policy line 2")
}

// TestDryRunChangesNothing: `policy check` decides every call and changes no message.
func TestDryRunChangesNothing(t *testing.T) {
	r := newRelay(t, starter, "claude", true)
	for _, line := range []string{permission(0, "git push"), permission(1, "npm test"),
		`{"jsonrpc":"2.0","id":7,"method":"terminal/create","params":{"sessionId":"s1","command":"git","args":["push"]}}`} {
		out := r.send(acp.AgentToClient, line)
		assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: line, Original: true}}, out)
	}
	require.Len(t, r.events, 3)
	assert.Equal(t, []Action{Deny, Allow, Deny}, []Action{r.events[0].Decision.Action, r.events[1].Decision.Action, r.events[2].Decision.Action})
	for _, e := range r.events {
		assert.False(t, e.Bound)
	}
	assert.Equal(t, map[string]int64{"permission deny": 1, "permission allow": 1, "terminal/create deny": 1}, r.f.Counts(),
		"--stats counts the decisions")
}

// An agent that asks before it announces the call (codex-acp 0.16 with unified exec): the note on
// the refused call follows its tool_call, with a title and kind (agent-shell draws an update of a
// call it never saw without a title or kind, and the body of a tool_call not at all).
func TestPermissionDenyOfAnUnannouncedCallAnnouncesIt(t *testing.T) {
	r := newRelay(t, starter, "codex-acp", false)
	out := r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"call_1","kind":"execute","status":"pending","title":"git push origin main","rawInput":{"command":["bash","-lc","git push origin main"],"cwd":`+string(rawjson.Quote(r.cwd))+`}},"options":[{"optionId":"approved","name":"Yes","kind":"allow_once"},{"optionId":"abort","name":"No","kind":"reject_once"}]}}`)
	require.Len(t, out, 3)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"git push origin main","kind":"execute","status":"pending"}}}`, out[1].Raw)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"failed","content":[{"type":"content","content":{"type":"text","text":"acp-proxy: denied by the policy (line 2: deny  Bash(git push:*)): git push origin main"}}]}}}`, out[2].Raw)

	// without a title, the command names it
	out = r.send(acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"call_2","kind":"execute","rawInput":{"command":["bash","-lc","git push"],"cwd":`+string(rawjson.Quote(r.cwd))+`}},"options":[{"optionId":"abort","name":"No","kind":"reject_once"}]}}`)
	require.Len(t, out, 3)
	assert.Contains(t, out[1].Raw, `"sessionUpdate":"tool_call","toolCallId":"call_2","title":"git push","kind":"execute","status":"pending"`)
}
