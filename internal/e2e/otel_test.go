package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// TestOtelSpansInJaeger: a real agent writes a file with a heredoc (which
// --shell-to-patch shows as an edit, and verifies) and runs ls, asking the
// user before each command, through `acp-proxy --shell-to-patch` exporting
// to a real Jaeger; the spans are read back from Jaeger's query API, over
// OTLP/HTTP and OTLP/gRPC. The tree a user sees: the session (a trace of
// its own, linked to the connection's), its prompt turn, the two tool
// calls under it with their permission requests under them, and
// shell-to-patch's actions as events of the heredoc's call; the turn and
// the calls as the GenAI conventions' invoke_agent and execute_tool spans
// (checkGenAI). No message text in any span, no tool call's title.
func TestOtelSpansInJaeger(t *testing.T) {
	j := startJaeger(t)
	cases := []struct{ agent, policy, protocol string }{
		{"codex-0.16", "untrusted", "http/protobuf"},
		{"claude-0.101", "", "grpc"},
	}
	for _, tc := range cases {
		t.Run(tc.agent+"-"+tc.protocol, func(t *testing.T) {
			s := launch(t, tc.agent, []string{heredocScript, "ls"}, false, tc.policy)
			service := "acp-proxy-" + tc.agent // one service per run: its traces apart
			endpoint := j.otlpHTTP
			if tc.protocol == "grpc" {
				endpoint = j.otlpGRPC
			}
			env := append(append([]string(nil), s.agent.Env...), "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL="+tc.protocol, "OTEL_SERVICE_NAME="+service)
			opts := acpclient.Options{Argv: append([]string{proxyBin(t), "--shell-to-patch", "--"}, s.agent.Argv...), Env: env, Dir: s.agent.Dir}
			t.Run("session", func(t *testing.T) { acpclient.Run(t, opts, "write hello.py, then list the files") })
			if t.Failed() {
				t.FailNow()
			}
			spans := j.spans(t, service, 8)
			traceID := checkSessionTree(t, spans)
			if shot := os.Getenv("JAEGER_SCREENSHOT"); shot != "" && tc.agent == "claude-0.101" {
				screenshot(t, j.query+"/trace/"+traceID, shot)
			}
		})
	}
}

// checkSessionTree checks the spans of one connection with one session of
// one turn that ran a heredoc write and ls, and returns the session's trace
// ID.
func checkSessionTree(t *testing.T, spans []jaegerSpan) string {
	t.Helper()
	byName := map[string][]jaegerSpan{}
	for _, s := range spans {
		byName[s.OperationName] = append(byName[s.OperationName], s)
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.OperationName)
	}
	require.Len(t, byName["acp.connection"], 1, "spans: %v", names)
	require.Len(t, byName["acp.session"], 1, "spans: %v", names)
	var turns, calls []jaegerSpan
	for _, s := range spans {
		switch {
		case strings.HasPrefix(s.OperationName, "invoke_agent "):
			turns = append(turns, s)
		case strings.HasPrefix(s.OperationName, "execute_tool "):
			calls = append(calls, s)
		}
	}
	require.Len(t, turns, 1, "spans: %v", names)
	require.Len(t, calls, 2, "spans: %v", names)
	// Each agent asks before the write; codex-acp and claude-agent-acp
	// run ls (read-only) without asking.
	require.NotEmpty(t, byName["acp.permission_request"], "spans: %v", names)
	conn, sess, turn := byName["acp.connection"][0], byName["acp.session"][0], turns[0]
	checkGenAI(t, turn, calls)

	assert.NotEmpty(t, conn.tag("acp.agent.name"), "the connection names the agent")
	assert.Empty(t, sess.parent(), "the session is a trace of its own")
	assert.NotEqual(t, conn.TraceID, sess.TraceID)
	assert.Equal(t, sess.SpanID, turn.parent(), "the turn is the session's")
	assert.Equal(t, "end_turn", turn.tag("acp.prompt.stop_reason"))
	var shown []jaegerSpan
	for _, call := range calls {
		assert.Equal(t, turn.SpanID, call.parent(), "the tool call is the turn's")
		assert.Equal(t, "completed", call.tag("acp.tool_call.status"))
		assert.Empty(t, call.tag("acp.tool_call.title"), "no title without --otel-content: it is the user's command line")
		assert.NotEmpty(t, call.tag("acp.tool_call.program"))
		assert.NotEmpty(t, call.tag("acp.tool_call.bytes_before"))
		if call.tag("acp.shell_to_patch.shown") == "true" {
			shown = append(shown, call)
			assert.Equal(t, "true", call.tag("acp.shell_to_patch.verified"), "the heredoc's edit was verified")
			assert.Equal(t, []string{"shell-to-patch: edit shown", "shell-to-patch: edit verified"}, call.events())
			assert.NotEqual(t, call.tag("acp.tool_call.bytes_before"), call.tag("acp.tool_call.bytes_after"), "the filter changed what the client got")
		}
	}
	require.Len(t, shown, 1, "the heredoc is shown as an edit, ls is not")
	var asked bool
	for _, p := range byName["acp.permission_request"] {
		assert.Equal(t, "selected", p.tag("acp.permission.outcome"))
		assert.Contains(t, p.tag("acp.permission.option_kind"), "allow")
		assert.NotEmpty(t, p.tag("acp.permission.wait_ms"))
		if p.tag("acp.tool_call.id") == shown[0].tag("acp.tool_call.id") {
			asked = true
			// codex-acp 0.16's shell_command and claude announce the call
			// before they ask: the request is the call's.
			assert.Equal(t, shown[0].SpanID, p.parent(), "the permission request is its call's")
		}
	}
	assert.True(t, asked, "the write was asked for")
	for _, s := range spans {
		for _, tag := range s.Tags {
			assert.NotContains(t, fmt.Sprint(tag.Value), "write hello.py", "no prompt text in %s", s.OperationName)
		}
	}
	return sess.TraceID
}

// checkGenAI checks the turn and its tool calls against the OpenTelemetry
// GenAI conventions, as Jaeger shows them: the turn an invoke_agent span of
// kind client, named after the agent, its conversation the ACP session;
// each call an execute_tool span named after its tool.
func checkGenAI(t *testing.T, turn jaegerSpan, calls []jaegerSpan) {
	t.Helper()
	assert.Equal(t, "invoke_agent", turn.tag("gen_ai.operation.name"))
	assert.Equal(t, "client", turn.tag("span.kind"))
	agent := turn.tag("gen_ai.agent.name")
	assert.NotEmpty(t, agent)
	assert.Equal(t, "invoke_agent "+agent, turn.OperationName)
	assert.NotEmpty(t, turn.tag("gen_ai.agent.version"))
	assert.Equal(t, turn.tag("acp.session.id"), turn.tag("gen_ai.conversation.id"))
	assert.NotEmpty(t, turn.tag("gen_ai.conversation.id"))
	for _, call := range calls {
		assert.Equal(t, "execute_tool", call.tag("gen_ai.operation.name"))
		tool := call.tag("gen_ai.tool.name")
		assert.NotEmpty(t, tool)
		assert.Equal(t, "execute_tool "+tool, call.OperationName)
		assert.Equal(t, call.tag("acp.tool_call.id"), call.tag("gen_ai.tool.call.id"))
		assert.Equal(t, "extension", call.tag("gen_ai.tool.type"))
		assert.Equal(t, turn.tag("gen_ai.conversation.id"), call.tag("gen_ai.conversation.id"), "the call is in the turn's conversation")
		assert.NotEqual(t, "client", call.tag("span.kind"), "a tool call is internal")
		for _, tag := range call.Tags {
			if tag.Key == "acp.tool_call.exit_code" {
				assert.IsType(t, float64(0), tag.Value, "the exit code is a number")
			}
		}
	}
}

// screenshot saves Jaeger's page of a trace, as headless Chromium renders
// it (the README's picture: JAEGER_UI_ASSETS and JAEGER_SCREENSHOT).
func screenshot(t *testing.T, url, path string) {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	require.NoError(t, err)
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--window-size=1500,560", "--virtual-time-budget=15000", "--screenshot="+path, url)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "chromium: %s", out)
}
