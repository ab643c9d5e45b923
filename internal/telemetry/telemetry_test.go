package telemetry

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan   = "00f067aa0ba902b7"
	promptTrace  = "0af7651916cd43dd8448eb211c80319c"
	promptParent = "b7ad6b7169203331"
)

// step is one line of a session, at a time after its start.
type step struct {
	at   time.Duration
	dir  acp.Direction
	line string
	note *filters.Note // instead of a line: a filter's note
}

var c2a, a2c = acp.ClientToAgent, acp.AgentToClient

// session is a client that sends trace context on initialize and on its
// prompt (not on session/new), a command the user allows after 1.5 s,
// which shell-to-patch shows as an edit and which exits 0.
var aSession = []step{
	{0, c2a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed","version":"0.200.0"},"_meta":{"traceparent":"00-` + clientTrace + `-` + clientSpan + `-01","tracestate":"vendor=1"}}}`, nil},
	{10 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","version":"0.16.0"}}}`, nil},
	{20 * time.Millisecond, c2a, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, nil},
	{30 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`, nil},
	{100 * time.Millisecond, c2a, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"write the secret file"}],"_meta":{"traceparent":"00-` + promptTrace + `-` + promptParent + `-01"}}}`, nil},
	{200 * time.Millisecond, 0, "", &filters.Note{Filter: "shell-to-patch", Event: "edit shown", SessionID: "s1", ToolCallID: "c1", Files: 1}},
	{200 * time.Millisecond, a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"cat > f","kind":"execute","status":"pending","rawInput":{"command":"cat > f"}}}}`, nil},
	{300 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`, nil},
	{1800 * time.Millisecond, c2a, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`, nil},
	{2000 * time.Millisecond, a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","_meta":{"terminal_exit":{"terminal_id":"c1","exit_code":0,"signal":null}}}}}`, nil},
	{2000 * time.Millisecond, 0, "", &filters.Note{Filter: "shell-to-patch", Event: "edit verified", SessionID: "s1", ToolCallID: "c1", Files: 1, Detail: "f holds what was shown"}},
	{2100 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, nil},
}

// play runs steps through a chain of the provider's Context filter (what
// the relay does with each line) into a tap, and returns what the chain
// wrote for each step (nothing for a note).
func play(t *testing.T, p *Provider, content bool, steps []step) [][]string {
	return playThrough(t, p, p.Context(), content, steps)
}

// playThrough is play with the trace-context filter given.
func playThrough(t *testing.T, p *Provider, ctxFilter *Context, content bool, steps []step) [][]string {
	return playWith(t, p, ctxFilter, ConnInfo{Agent: []string{"codex-acp"}, Content: content}, steps)
}

// playWith is playThrough with what the connection's span says of the
// proxy given.
func playWith(t *testing.T, p *Provider, ctxFilter *Context, info ConnInfo, steps []step) [][]string {
	t.Helper()
	chain := filters.NewChain(capabilities.New(), ctxFilter)
	info.Chain = chain
	tap := NewTap(p.NewConn(info), nil)
	chain.OnNote = tap.Note
	start := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
	var wrote [][]string
	for _, s := range steps {
		at := start.Add(s.at)
		if s.note != nil {
			n := *s.note
			n.Time = at
			tap.Note(n)
			wrote = append(wrote, nil)
			continue
		}
		pass := &proxy.Passage{Dir: s.dir, Time: at, Line: []byte(s.line), EOL: true}
		var out []string
		err := chain.Process(filters.NewMessage(s.dir, pass.Line, at, nil), func(l filters.Line) error {
			pass.Out = append(pass.Out, proxy.Sent{Line: append([]byte(nil), l.Raw...), Original: l.Original})
			out = append(out, string(l.Raw))
			return nil
		})
		require.NoError(t, err)
		tap.Passed(pass)
		wrote = append(wrote, out)
	}
	require.NoError(t, tap.End(c2a))
	require.NoError(t, tap.End(a2c))
	return wrote
}

func export(t *testing.T, content bool) (*otlptest.Receiver, [][]string) {
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL, Version: "test"})
	require.NoError(t, err)
	wrote := play(t, p, content, aSession)
	p.Close(10*time.Second, nil)
	return r, wrote
}

func TestSessionSpans(t *testing.T) {
	r, wrote := export(t, false)
	spans := r.ByName()
	for _, name := range []string{"acp.connection", "acp.session", "invoke_agent codex-acp", "execute_tool execute", "acp.permission_request"} {
		require.Len(t, spans[name], 1, "one %s span; got %v", name, r.Spans())
	}
	conn, sess, turn := spans["acp.connection"][0], spans["acp.session"][0], spans["invoke_agent codex-acp"][0]
	call, perm := spans["execute_tool execute"][0], spans["acp.permission_request"][0]

	t.Run("the connection joins the client's trace from initialize, and the agent is told the proxy's span", func(t *testing.T) {
		assert.Equal(t, clientTrace, otlptest.HexID(conn.TraceId))
		assert.Equal(t, clientSpan, otlptest.HexID(conn.ParentSpanId))
		assert.Contains(t, wrote[0][0], `"traceparent":"00-`+clientTrace+`-`+otlptest.HexID(conn.SpanId)+`-01","tracestate":"vendor=1"`)
		a := otlptest.Attrs(conn.Attributes)
		assert.Equal(t, "zed", a["acp.client.name"])
		assert.Equal(t, "codex-acp", a["acp.agent.name"])
		assert.Equal(t, "0.16.0", a["acp.agent.version"])
		for _, kv := range conn.Attributes {
			if kv.Key == "acp.protocol_version" || kv.Key == "acp.client.protocol_version" {
				assert.Equal(t, int64(1), kv.Value.GetIntValue(), "%s is a number", kv.Key)
			}
		}
		assert.Equal(t, "acp-proxy", otlptest.Attrs(r.Resource())["service.name"])
	})
	t.Run("a session without trace context is a trace of its own, linked to the connection", func(t *testing.T) {
		assert.Empty(t, sess.ParentSpanId)
		assert.NotEqual(t, otlptest.HexID(conn.TraceId), otlptest.HexID(sess.TraceId))
		require.Len(t, sess.Links, 1)
		assert.Equal(t, otlptest.HexID(conn.SpanId), otlptest.HexID(sess.Links[0].SpanId))
		assert.Equal(t, "s1", otlptest.Attrs(sess.Attributes)["acp.session.id"])
		assert.Equal(t, aSession[2].line, wrote[2][0], "a request without traceparent passes byte for byte")
	})
	t.Run("the prompt turn joins the prompt's trace context and ends with the stop reason", func(t *testing.T) {
		assert.Equal(t, promptTrace, otlptest.HexID(turn.TraceId))
		assert.Equal(t, promptParent, otlptest.HexID(turn.ParentSpanId))
		assert.Contains(t, wrote[4][0], `"traceparent":"00-`+promptTrace+`-`+otlptest.HexID(turn.SpanId)+`-01"`)
		assert.Equal(t, "end_turn", otlptest.Attrs(turn.Attributes)["acp.prompt.stop_reason"])
		assert.Equal(t, uint64(2000*time.Millisecond), turn.EndTimeUnixNano-turn.StartTimeUnixNano)
	})
	t.Run("the turn is the GenAI conventions' invoke_agent of a remote agent, the session its conversation", func(t *testing.T) {
		assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, turn.Kind)
		a := otlptest.Attrs(turn.Attributes)
		for k, v := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "codex-acp",
			"gen_ai.agent.version": "0.16.0", "gen_ai.conversation.id": "s1", "acp.session.id": "s1"} {
			assert.Equal(t, v, a[k], k)
		}
	})
	t.Run("the tool call is their execute_tool", func(t *testing.T) {
		assert.Equal(t, tracepb.Span_SPAN_KIND_INTERNAL, call.Kind)
		a := otlptest.Attrs(call.Attributes)
		for k, v := range map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "execute",
			"gen_ai.tool.call.id": "c1", "gen_ai.tool.type": "extension", "gen_ai.conversation.id": "s1"} {
			assert.Equal(t, v, a[k], k)
		}
		assert.Equal(t, tracepb.Status_STATUS_CODE_UNSET, call.Status.GetCode(), "it completed")
	})
	t.Run("the tool call is the turn's child, with what the agent and the filters said of it", func(t *testing.T) {
		assert.Equal(t, otlptest.HexID(turn.SpanId), otlptest.HexID(call.ParentSpanId))
		a := otlptest.Attrs(call.Attributes)
		for k, v := range map[string]string{"acp.tool_call.kind": "execute", "acp.tool_call.program": "cat", "acp.tool_call.status": "completed",
			"acp.tool_call.exit_code": "0", "acp.shell_to_patch.shown": "true", "acp.shell_to_patch.verified": "true",
			"acp.tool_call.messages_before": "2", "acp.tool_call.bytes_before": itoaLen(aSession[6].line, aSession[9].line),
			"acp.tool_call.duration_ms": "1800"} {
			assert.Equal(t, v, a[k], k)
		}
		assert.NotContains(t, a, "acp.shell_to_patch.taken_back")
		assert.NotContains(t, a, "acp.tool_call.title", "the title is the user's command line")
		var events []string
		for _, e := range call.Events {
			events = append(events, e.Name)
		}
		assert.Equal(t, []string{"shell-to-patch: edit shown", "shell-to-patch: edit verified"}, events)
	})
	t.Run("the permission request is the call's child: what was chosen, and how long the user took", func(t *testing.T) {
		assert.Equal(t, otlptest.HexID(call.SpanId), otlptest.HexID(perm.ParentSpanId))
		a := otlptest.Attrs(perm.Attributes)
		assert.Equal(t, "allow_once,reject_once", a["acp.permission.option_kinds"])
		assert.Equal(t, "allow", a["acp.permission.option_id"])
		assert.Equal(t, "allow_once", a["acp.permission.option_kind"])
		assert.Equal(t, "selected", a["acp.permission.outcome"])
		assert.Equal(t, "1500", a["acp.permission.wait_ms"])
	})
}

func itoaLen(lines ...string) string {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return itoa(n)
}

func itoa(n int) string { return strconv.Itoa(n) }

// secretSession holds the user's text where agents put it: the prompt, a
// command line with a key in the tool call's title and input, a path under
// the home directory, an error message.
var secretSession = []step{
	aSession[0], aSession[1], aSession[2], aSession[3], aSession[4],
	{200 * time.Millisecond, a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"curl -H 'Authorization: Bearer sk-live-123' https://x","kind":"execute","status":"pending","rawInput":{"command":["/bin/bash","-lc","curl -H 'Authorization: Bearer sk-live-123' https://x"],"cwd":"/home/alice/p"},"locations":[{"path":"/home/alice/p/f"}]}}}`, nil},
	{300 * time.Millisecond, a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed","rawOutput":{"exit_code":3,"stderr":"sk-live-123 rejected"}}}}`, nil},
	{400 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"could not read /home/alice/.netrc"}}`, nil},
}

// Without --otel-content nothing of the user's text leaves: not the
// prompt, the tool call's title or input, the command's arguments, paths,
// error messages, the agent's command line or the proxy's flags' values.
// With it, they do.
func TestMessageTextOnlyWhenAsked(t *testing.T) {
	secrets := []string{"write the secret file", "sk-live-123", "Bearer", "/home/alice", "sk-agent-9", ".netrc"}
	info := ConnInfo{Agent: []string{"/home/alice/bin/codex-acp", "--api-key", "sk-agent-9"},
		Args: []string{"--otel-endpoint=http://c:4318", "--record", "/home/alice/t.jsonl", "--shell-to-patch", "--", "/home/alice/bin/codex-acp"}}
	for _, content := range []bool{false, true} {
		r := otlptest.New(t)
		p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
		require.NoError(t, err)
		info.Content = content
		playWith(t, p, p.Context(), info, secretSession)
		p.Close(10*time.Second, nil)
		var text []string // every piece of text a span holds
		for _, s := range r.Spans() {
			text = append(text, s.Name, s.Status.GetMessage())
			for k, v := range otlptest.Attrs(s.Attributes) {
				text = append(text, k+"="+v)
			}
			for _, e := range s.Events {
				text = append(text, e.Name)
				for k, v := range otlptest.Attrs(e.Attributes) {
					text = append(text, k+"="+v)
				}
			}
		}
		all := strings.Join(text, "\n")
		if !content {
			for _, secret := range secrets {
				assert.NotContains(t, all, secret)
			}
			for _, kept := range []string{"acp.tool_call.program=curl", "acp.agent.program=codex-acp", "acp.proxy.flags=--otel-endpoint,--record,--shell-to-patch",
				"gen_ai.tool.name=execute", "acp.tool_call.exit_code=3", "acp.error.code=-32603"} {
				assert.Contains(t, text, kept)
			}
			continue
		}
		for _, secret := range secrets {
			assert.Contains(t, all, secret)
		}
		for _, key := range []string{"acp.prompt.text=", "acp.tool_call.title=", "acp.tool_call.raw_input=", "gen_ai.tool.call.arguments=", "acp.agent.command=", "acp.proxy.args="} {
			assert.Contains(t, all, key)
		}
	}
}

// A tool call the agent reports failed is an error, with its exit code; a
// failed turn too, with the JSON-RPC error's code. Codes are integers.
func TestFailuresAreErrors(t *testing.T) {
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
	require.NoError(t, err)
	play(t, p, false, secretSession)
	p.Close(10*time.Second, nil)
	spans := r.ByName()
	require.Len(t, spans["execute_tool execute"], 1)
	require.Len(t, spans["invoke_agent codex-acp"], 1)
	call, turn := spans["execute_tool execute"][0], spans["invoke_agent codex-acp"][0]
	assert.Equal(t, tracepb.Status_STATUS_CODE_ERROR, call.Status.GetCode())
	assert.Equal(t, "tool call failed: exit code 3", call.Status.GetMessage())
	assert.Equal(t, "3", otlptest.Attrs(call.Attributes)["error.type"])
	assert.Equal(t, tracepb.Status_STATUS_CODE_ERROR, turn.Status.GetCode())
	assert.Equal(t, "-32603", otlptest.Attrs(turn.Attributes)["error.type"])
	for _, a := range []struct {
		span *tracepb.Span
		key  string
		want int64
	}{{call, "acp.tool_call.exit_code", 3}, {turn, "acp.error.code", -32603}} {
		var found bool
		for _, kv := range a.span.Attributes {
			if kv.Key == a.key {
				found = true
				assert.Equal(t, a.want, kv.Value.GetIntValue(), "%s is an integer", a.key)
				_, isInt := kv.Value.GetValue().(*commonpb.AnyValue_IntValue)
				assert.True(t, isInt, "%s is an integer", a.key)
			}
		}
		assert.True(t, found, a.key)
	}
}

// With --otel-propagate a request without trace context gets the proxy's:
// the agent's spans for initialize go under the connection's span, those of
// session/new and of each prompt under the session's and the turn's, in the
// session's trace. What the client sent itself is passed on as without it.
func TestPropagateAddsTheProxysContext(t *testing.T) {
	bare := []step{
		{0, c2a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`, nil},
		{10 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}`, nil},
		{20 * time.Millisecond, c2a, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[],"_meta":{"other":1}}}`, nil},
		{30 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`, nil},
		{100 * time.Millisecond, c2a, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`, nil},
		{200 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, nil},
		{300 * time.Millisecond, c2a, aSession[4].line, nil}, // a prompt with the client's own context
		{400 * time.Millisecond, a2c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, nil},
	}
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
	require.NoError(t, err)
	ctxFilter := p.Context()
	ctxFilter.Add = true
	wrote := playThrough(t, p, ctxFilter, false, bare)
	p.Close(10*time.Second, nil)
	spans := r.ByName()
	require.Len(t, spans["invoke_agent codex-acp"], 2)
	conn, sess, turn := spans["acp.connection"][0], spans["acp.session"][0], spans["invoke_agent codex-acp"][0]
	traceparent := func(s *tracepb.Span) string {
		return `"traceparent":"00-` + otlptest.HexID(s.TraceId) + `-` + otlptest.HexID(s.SpanId) + `-01"`
	}
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"_meta":{`+traceparent(conn)+`}}}`, wrote[0][0])
	assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[],"_meta":{"other":1,`+traceparent(sess)+`}}}`, wrote[2][0])
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[],"_meta":{`+traceparent(turn)+`}}}`, wrote[4][0])
	assert.Equal(t, otlptest.HexID(sess.SpanId), otlptest.HexID(turn.ParentSpanId))
	assert.Empty(t, sess.ParentSpanId, "the session is the root of its trace")
	clients := spans["invoke_agent codex-acp"][1]
	assert.Equal(t, promptTrace, otlptest.HexID(clients.TraceId), "the client's own context wins")
	assert.Equal(t, strings.Replace(aSession[4].line, promptParent, otlptest.HexID(clients.SpanId), 1), wrote[6][0])
	for _, out := range [][]string{wrote[1], wrote[3], wrote[5], wrote[7]} {
		assert.NotContains(t, out[0], "traceparent", "responses pass as they were")
	}
}
