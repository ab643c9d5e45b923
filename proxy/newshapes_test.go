package proxy_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// The shapes agents send that the filters were written before: each must
// cross the relay as it arrived, in order, with every filter on as with
// none, and without a word in the log. The shapes are the ACP spec's
// (its RFDs and schema for notices, compaction, usage, session info,
// elicitation, request cancellation and the tool-call name) and what
// codex-acp 2.6.0 sends (_auth/status_update right after initialize's
// answer, session_info_update with its thread status, usage_update, tool
// calls with "name":"exec_command", and subagents: updates under session
// ids the client never created with session/new).

// step is one line of a connection, in the direction it travels.
type step struct {
	dir  acp.Direction
	line string
}

func agent(lines ...string) []step  { return steps(acp.AgentToClient, lines) }
func client(lines ...string) []step { return steps(acp.ClientToAgent, lines) }

func steps(d acp.Direction, lines []string) []step {
	var s []step
	for _, l := range lines {
		s = append(s, step{d, l})
	}
	return s
}

const (
	mainSession = "019a2b3c-main"
	subSession  = "019a2b3c-sub" // a subagent's: never created by session/new
)

// update is a session/update notification of session sid.
func update(sid, u string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":%s}}`, sid, u)
}

// The clients the filters tell apart: one without the terminal-output
// extension (the filters translate for it) and Zed's, with it.
var (
	plainClient = `{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}`
	zedClient   = `{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}}`
)

// opening is a codex-acp 2.6.0 connection up to its first prompt, in
// cwd, with early (lines between initialize and session/new) and body
// (the turn) spliced in, and the turn's end.
func opening(caps, cwd string, early, body []step) []step {
	var s []step
	s = append(s, client(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":`+caps+`,"clientInfo":{"name":"zed","version":"0.213.0"}}}`)...)
	s = append(s, agent(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"authMethods":[],"agentInfo":{"name":"codex-acp","version":"2.6.0"}}}`)...)
	s = append(s, early...)
	s = append(s, client(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, cwd))...)
	s = append(s, agent(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":%q}}`, mainSession))...)
	s = append(s, client(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"go"}]}}`, mainSession))...)
	s = append(s, body...)
	return append(s, agent(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`)...)
}

// logged is what a relay said: its log, the filters' log, and the
// filters' failures.
type logged struct {
	buf bytes.Buffer
	log *slog.Logger
}

func newLogged() *logged {
	l := &logged{}
	l.log = slog.New(slog.NewTextHandler(&l.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return l
}

// newRelay is the relay the CLI builds for cfg: its log, the filters' log
// and their failures all in l (see newRelay in cmd/acp-proxy).
func newRelay(cfg filterset.Config, l *logged) *proxy.Relay {
	cfg.Log = l.log
	chain := cfg.Chain(capabilities.New())
	chain.OnError = func(d acp.Direction, name string, err error) {
		l.log.Warn("filter failed; message forwarded unchanged", "filter", name, "dir", d.String(), "err", err)
	}
	r := &proxy.Relay{Chain: chain, Log: l.log}
	if chain.Len() == 0 {
		r.Chain = nil
	}
	return r
}

// relayScript runs script through one connection of r and returns the
// lines each side received. Each run of lines of one direction is pumped
// to its end before the other direction's next run, so the filters see
// the two directions interleaved as the script has them (a request before
// its response); the end of a run is, for them, the other side going
// quiet for a while.
func relayScript(t *testing.T, r *proxy.Relay, script []step) (got [2][]string) {
	t.Helper()
	var out [2]bytes.Buffer
	c := r.Open(&out[acp.ClientToAgent], &out[acp.AgentToClient])
	for i := 0; i < len(script); {
		d, j := script[i].dir, i
		var run strings.Builder
		for ; j < len(script) && script[j].dir == d; j++ {
			run.WriteString(script[j].line + "\n")
		}
		require.NoError(t, c.Pump(d, strings.NewReader(run.String())))
		i = j
	}
	for d := range out {
		if s := out[d].String(); s != "" {
			require.True(t, strings.HasSuffix(s, "\n"), "%s: the last line is not terminated", acp.Direction(d))
			got[d] = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		}
	}
	return got
}

// sent is the lines of script in direction d.
func sent(script []step, d acp.Direction) []string {
	var lines []string
	for _, s := range script {
		if s.dir == d {
			lines = append(lines, s.line)
		}
	}
	return lines
}

var allFilters = filterset.Config{ShellToPatch: true, Deltas: true, TerminalOutput: true, ExpandPersistedOutput: true}

func TestNewAgentShapesCrossTheRelayUntouched(t *testing.T) {
	cases := []struct {
		name        string
		early, body []step
	}{
		{name: "auth status update right after initialize",
			// codex-acp 2.6.0 sends it unasked, before any session.
			early: agent(`{"jsonrpc":"2.0","method":"_auth/status_update","params":{"authStatus":{"kind":"gateway","label":"Custom model gateway","detail":"mock"}}}`)},
		{name: "notice",
			// The session-notices RFD: no capability needed, so a v1
			// client gets them too; _meta and description are nullable.
			body: agent(
				update(mainSession, `{"sessionUpdate":"notice","severity":"warning","title":"MCP server unavailable","description":"Continuing without it."}`),
				update(mainSession, `{"sessionUpdate":"notice","severity":"_vendor","title":"Rate limited","description":null,"_meta":null}`))},
		{name: "session info update",
			// As codex-acp 2.6.0 sends them: its thread status, then a title.
			body: agent(
				update(mainSession, `{"sessionUpdate":"session_info_update","_meta":{"codex":{"threadStatus":{"type":"active","activeFlags":[]}}}}`),
				update(mainSession, `{"sessionUpdate":"session_info_update","title":"run it"}`),
				update(mainSession, `{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-11-27T10:00:00Z"}`))},
		{name: "usage update",
			// codex-acp 2.6.0's, and the session-usage RFD's with a cost.
			body: agent(
				update(mainSession, `{"sessionUpdate":"usage_update","used":15,"size":258400}`),
				update(mainSession, `{"sessionUpdate":"usage_update","used":53000,"size":200000,"cost":{"amount":0.045,"currency":"USD"}}`))},
		{name: "compaction",
			// The session-compaction RFD: an upsert, summary chunks, the
			// completed upsert with the whole summary.
			body: agent(
				update(mainSession, `{"sessionUpdate":"compaction_update","compactionId":"cmp_001","status":"in_progress"}`),
				update(mainSession, `{"sessionUpdate":"compaction_summary_chunk","compactionId":"cmp_001","content":{"type":"text","text":"## Retained context\n\n"}}`),
				update(mainSession, `{"sessionUpdate":"compaction_update","compactionId":"cmp_001","status":"completed","summary":[{"type":"text","text":"## Retained context\n\nThe user is updating the ACP schema..."}]}`))},
		{name: "subagent messages under a session never created",
			body: agent(
				update(subSession, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking at the tests."}}`),
				update(subSession, `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"thinking"}}`),
				update(subSession, `{"sessionUpdate":"usage_update","used":15,"size":258400}`),
				update(subSession, `{"sessionUpdate":"session_info_update","_meta":{"codex":{"threadStatus":{"type":"idle"}}}}`))},
		{name: "elicitation and its answers",
			// The elicitation page: a form request scoped to a session,
			// a URL request scoped to a request; the client accepts one
			// and declines the other.
			body: append(agent(
				`{"jsonrpc":"2.0","id":43,"method":"elicitation/create","params":{"sessionId":"`+mainSession+`","mode":"form","message":"How should I approach this refactoring?","requestedSchema":{"type":"object","properties":{"strategy":{"type":"string","enum":["conservative","balanced","aggressive"]}},"required":["strategy"]}}}`,
				`{"jsonrpc":"2.0","id":44,"method":"elicitation/create","params":{"requestId":2,"mode":"url","elicitationId":"github-oauth-001","url":"https://agent.example.com/connect?elicitationId=github-oauth-001","message":"Please authorize access to your repositories."}}`),
				client(
					`{"jsonrpc":"2.0","id":43,"result":{"action":"accept","content":{"strategy":"balanced"}}}`,
					`{"jsonrpc":"2.0","id":44,"result":{"action":"decline"}}`)...)},
		{name: "cancel requests both ways",
			// The cancellation page: the agent cancels its own request,
			// the client answers -32800; the client cancels its prompt.
			body: append(append(agent(
				`{"jsonrpc":"2.0","id":45,"method":"elicitation/create","params":{"sessionId":"`+mainSession+`","mode":"form","message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`,
				`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":45}}`),
				client(
					`{"jsonrpc":"2.0","id":45,"error":{"code":-32800,"message":"Request cancelled"}}`,
					`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`)...),
				agent(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"not-in-flight","_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}}`)...)},
	}
	for _, c := range cases {
		for _, caps := range []struct{ name, caps string }{{"plain", plainClient}, {"zed", zedClient}} {
			for _, filters := range []struct {
				name string
				cfg  filterset.Config
			}{{"no filter", filterset.Config{}}, {"every filter", allFilters}} {
				t.Run(c.name+"/"+caps.name+"/"+filters.name, func(t *testing.T) {
					script := opening(caps.caps, t.TempDir(), c.early, c.body)
					l := newLogged()
					got := relayScript(t, newRelay(filters.cfg, l), script)
					toAgent := sent(script, acp.ClientToAgent)
					if filters.cfg.TerminalOutput && caps.caps == plainClient {
						// --terminal-output asks for the extension on a
						// plain client's behalf: initialize is the one
						// line it changes.
						require.NotEmpty(t, got[acp.ClientToAgent])
						assert.Contains(t, got[acp.ClientToAgent][0], `"terminal_output":true`)
						toAgent, got[acp.ClientToAgent] = toAgent[1:], got[acp.ClientToAgent][1:]
					}
					assert.Equal(t, toAgent, got[acp.ClientToAgent], "client→agent: every line as it was sent, in order")
					assert.Equal(t, sent(script, acp.AgentToClient), got[acp.AgentToClient], "agent→client: every line as it was sent, in order")
					assert.Empty(t, l.buf.String(), "log")
				})
			}
		}
	}
}

// subagentCalls are the tool calls of a codex-acp 2.6.0 subagent and a
// claude-agent-acp 0.101 one, in session sid: commands that write no file,
// which shell-to-patch would leave alone in any session.
func subagentCalls(sid string) []step {
	return agent(
		// codex-acp 2.6.0: the tool's name, a PTY terminal, output as
		// terminal_output_delta chunks, the end as terminal_exit.
		update(sid, `{"sessionUpdate":"tool_call","toolCallId":"call_1","name":"exec_command","kind":"execute","title":"ls","status":"in_progress","content":[{"type":"terminal","terminalId":"call_1"}],"rawInput":{"command":"ls","cwd":"/w"},"_meta":{"terminal_info":{"cwd":"/w","terminal_id":"call_1"}}}`),
		update(sid, `{"sessionUpdate":"tool_call_update","toolCallId":"call_1","_meta":{"terminal_output_delta":{"terminal_id":"call_1","data":"a.txt\n"}}}`),
		update(sid, `{"sessionUpdate":"tool_call_update","toolCallId":"call_1","_meta":{"terminal_output_delta":{"terminal_id":"call_1","data":"b.txt\n"}}}`),
		update(sid, `{"sessionUpdate":"tool_call_update","toolCallId":"call_1","name":"exec_command","status":"completed","_meta":{"terminal_exit":{"exit_code":0,"signal":null,"terminal_id":"call_1"}}}`),
		// claude-agent-acp 0.101's Bash tool.
		update(sid, `{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"toolu_01"}},"toolCallId":"toolu_01","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":"toolu_01"}]}`),
		update(sid, `{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"toolu_01","sessionUpdate":"tool_call_update","rawInput":{"command":"ls","description":"List"},"title":"ls"}`),
		update(sid, `{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_output_delta":{"terminal_id":"toolu_01","data":"a.txt\nb.txt\n"}},"toolCallId":"toolu_01","sessionUpdate":"tool_call_update"}`),
		update(sid, `{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"toolu_01","exit_code":0,"signal":null}},"toolCallId":"toolu_01","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"a.txt\nb.txt"}`),
	)
}

// TestSubagentCallsAreFilteredLikeAnyCall: tool calls under a session id
// that never went through session/new reach the client as the same calls
// of a session the client created would: the filters key a call by session
// and id, and need nothing else of the session to show its output. So no
// update is dropped or broken, and the output filters do for a subagent
// what they do for the main agent. The tool's name is kept wherever the
// filters rewrite a call.
func TestSubagentCallsAreFilteredLikeAnyCall(t *testing.T) {
	for _, caps := range []struct{ name, caps string }{{"plain", plainClient}, {"zed", zedClient}} {
		t.Run(caps.name, func(t *testing.T) {
			cwd := t.TempDir()
			l := newLogged()
			sub := relayScript(t, newRelay(allFilters, l), opening(caps.caps, cwd, nil, subagentCalls(subSession)))
			main := relayScript(t, newRelay(allFilters, l), opening(caps.caps, cwd, nil, subagentCalls(mainSession)))
			for i := range main[acp.AgentToClient] {
				main[acp.AgentToClient][i] = strings.ReplaceAll(main[acp.AgentToClient][i], mainSession, subSession)
			}
			// Not the session/new result, which names the main session.
			require.Len(t, sub[acp.AgentToClient], len(main[acp.AgentToClient]))
			sub[acp.AgentToClient][1], main[acp.AgentToClient][1] = "", ""
			assert.Equal(t, main, sub, "a subagent's calls are shown as a created session's")
			assert.Empty(t, l.buf.String(), "log")

			named := 0
			for _, line := range sub[acp.AgentToClient] {
				if id, _ := rawjson.GetString([]byte(line), "params", "update", "toolCallId"); id == "call_1" && strings.Contains(line, `"status"`) {
					named++
					name, _ := rawjson.GetString([]byte(line), "params", "update", "name")
					assert.Equal(t, "exec_command", name, "the tool's name is kept: %s", line)
				}
			}
			assert.Equal(t, 2, named, "the call's announcement and end reach the client")
		})
	}
}

// TestShellToPatchStandsAsideForSessionsItDoesNotKnow: a command that
// writes a file is shown as an edit in a session the client created (its
// directory is known), and left as it came in one it did not: shell-to-
// patch has no directory to check the target against, so it shows nothing
// it cannot prove.
func TestShellToPatchStandsAsideForSessionsItDoesNotKnow(t *testing.T) {
	cwd := t.TempDir()
	call := func(sid string) string {
		// codex-acp 0.16's shape, which shell-to-patch recognises.
		return update(sid, fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"call_w","title":"printf","kind":"execute","status":"in_progress","rawInput":{"command":["/bin/bash","-lc","printf 'x\\n' > out.txt"],"cwd":%q}}`, cwd))
	}
	for _, c := range []struct {
		sid      string
		rewrites bool
	}{{mainSession, true}, {subSession, false}} {
		t.Run(c.sid, func(t *testing.T) {
			l := newLogged()
			script := opening(plainClient, cwd, nil, agent(call(c.sid)))
			// The command does not run here: nothing checks the edit
			// against the file when the turn ends.
			got := relayScript(t, newRelay(filterset.Config{ShellToPatch: true, Replaying: true}, l), script)
			line := got[acp.AgentToClient][2]
			if c.rewrites {
				kind, _ := rawjson.GetString([]byte(line), "params", "update", "kind")
				assert.Equal(t, "edit", kind, "shown as an edit: %s", line)
				assert.Contains(t, line, filepath.Join(cwd, "out.txt"))
			} else {
				assert.Equal(t, call(c.sid), line, "left as it came")
			}
			assert.Empty(t, l.buf.String(), "log")
		})
	}
}
