package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/testbin"
	"github.com/acp-proxy/acp-proxy/proxy"
)

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

func fakeAgent(t testing.TB) string { return testbin.Build(t, "./internal/fakeagent") }

// answerLine is an agent's answer to doctor's initialize.
func answerLine(name, version string, protocol int) string {
	return `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":` + json.Number(rune('0'+protocol)).String() +
		`,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true,"audio":false},"_meta":{"x":{}},"mcpCapabilities":{"http":false},"auth":{}},` +
		`"agentInfo":{"name":"` + name + `","title":"T","version":"` + version + `"},` +
		`"authMethods":[{"id":"key","name":"Use KEY","type":"env_var"}]}}` + "\n"
}

// emitting is a fake agent that writes lines first, then waits for EOF.
func emitting(t *testing.T, lines ...string) []string {
	f := filepath.Join(t.TempDir(), "out.jsonl")
	require.NoError(t, os.WriteFile(f, []byte(strings.Join(lines, "")), 0o644))
	return []string{fakeAgent(t), "--emit", f}
}

// sessionLine is an agent's answer to doctor's session/new.
const sessionLine = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s-1"}}` + "\n"

func TestProbeReadsTheAnswerToInitialize(t *testing.T) {
	argv := emitting(t,
		"starting up...\n",
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`+"\n",
		`{"jsonrpc":"2.0","id":7,"result":{}}`+"\n",
		answerLine("codex-acp", "0.13.0", 1), sessionLine)
	a, err := Probe(context.Background(), argv, nil, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 1, a.ProtocolVersion)
	assert.Equal(t, AgentInfo{Name: "codex-acp", Title: "T", Version: "0.13.0"}, a.Info)
	assert.Equal(t, []AuthMethod{{ID: "key", Name: "Use KEY", Type: "env_var"}}, a.AuthMethods)
	assert.Equal(t, []string{"starting up..."}, a.NotJSON, "a line an editor could not read")
	assert.Equal(t, argv[0], a.Path)
	assert.False(t, a.NoInfo)
	assert.Equal(t, &Session{ID: "s-1"}, a.Session)
}

// After initialize doctor asks for a session in its temporary directory:
// an agent that needs a sign-in first refuses it, which is not an agent
// that works as it is.
func TestProbeTriesANewSession(t *testing.T) {
	const noInfo = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}` + "\n"
	cases := []struct {
		name  string
		argv  []string
		want  Session
		auth  bool
		owing string // what NoAnswer says
	}{
		{"started", emitting(t, noInfo, sessionLine), Session{ID: "s-1"}, false, ""},
		{"authentication required", emitting(t, noInfo, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Authentication required"}}`+"\n"),
			Session{Refused: &RPCError{Code: -32000, Message: "Authentication required"}}, true, ""},
		{"login named", emitting(t, noInfo, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"details":"Please run /login"}}}`+"\n"),
			Session{Refused: &RPCError{Code: -32603, Message: "Internal error", Data: json.RawMessage(`{"details":"Please run /login"}`)}}, true, ""},
		{"other error", emitting(t, noInfo, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"cwd must be absolute"}}`+"\n"),
			Session{Refused: &RPCError{Code: -32602, Message: "cwd must be absolute"}}, false, ""},
		{"no answer", emitting(t, noInfo), Session{}, false, "fakeagent did not answer session/new within 2s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timeout := time.Minute
			if c.owing != "" {
				timeout = 2 * time.Second
			}
			a, err := Probe(context.Background(), c.argv, nil, timeout)
			require.NoError(t, err)
			assert.True(t, a.NoInfo, "no agentInfo")
			require.NotNil(t, a.Session)
			assert.Equal(t, c.auth, a.Session.AuthRequired())
			if c.owing != "" {
				assert.Contains(t, a.Session.NoAnswer, c.owing)
				return
			}
			assert.Equal(t, c.want, *a.Session)
		})
	}
}

// An agent that cannot start, exits first, refuses, or keeps silent gives
// one line saying so, with what it last said on stderr.
func TestProbeFailures(t *testing.T) {
	cases := []struct {
		name string
		argv []string
		code int // a *proxy.StartError's, or 0
		says string
	}{
		{"not found", []string{"acp-proxy-no-such-agent"}, 127, "acp-proxy-no-such-agent: command not found"},
		{"exits first", []string{"sh", "-c", "echo 'no API key' >&2; exit 3"}, 0, "sh exited (status 3) before answering initialize; its stderr ended with: no API key"},
		{"never answers", []string{fakeAgent(t)}, 0, "fakeagent did not answer initialize within 200ms (--timeout to wait longer)"},
		{"refuses", emitting(t, `{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"bad version"}}`+"\n"), 0, "the agent refused initialize: bad version (code -32602)"},
		{"closes stdout", []string{fakeAgent(t), "--close-stdout", "--exit", "4"}, 0, "fakeagent exited (status 4) before answering initialize"},
		// A coloured message (chalk's codes, a window title, a spinner
		// rewritten with \r) is shown as a terminal shows it.
		{"colours its stderr", []string{"sh", "-c", `printf '\033]0;agent\007\033[1;31mError:\033[0m \033[33mno API key\033[39m\n' >&2; exit 3`}, 0,
			"sh exited (status 3) before answering initialize; its stderr ended with: Error: no API key"},
		{"spinner", []string{"sh", "-c", `printf 'loading |\rloading /\rfailed: \033[2Koffline\r\n' >&2; exit 3`}, 0,
			"its stderr ended with: failed: offline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timeout := time.Minute
			if c.name == "never answers" {
				timeout = 200 * time.Millisecond
			}
			_, err := Probe(context.Background(), c.argv, nil, timeout)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.says)
			assert.NotContains(t, err.Error(), "\n")
			var se *proxy.StartError
			if c.code != 0 {
				require.True(t, errors.As(err, &se))
				assert.Equal(t, c.code, se.Code)
			} else {
				assert.False(t, errors.As(err, &se))
			}
		})
	}
}

// The agent runs in a directory of its own, never the user's project.
func TestProbeRunsTheAgentOutsideTheCurrentDirectory(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	_, err = Probe(context.Background(), []string{"sh", "-c", `pwd >&2; touch written-here; exit 5`}, nil, time.Minute)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "stderr ended with: "+wd)
	assert.NoFileExists(t, filepath.Join(wd, "written-here"))
}

// Agents are recognised by the package their command line names, else by
// agentInfo.name; each proven release by its version, a registry agent by
// its package (or, for a binary, its executable or agentInfo.name).
func TestAgentsAreRecognised(t *testing.T) {
	cases := []struct {
		argv          []string
		name, version string
		protocol      int
		known         bool
		as            string
		registryID    string // "" when not a registry agent
	}{
		{[]string{"codex-acp"}, "codex-acp", "0.13.0", 1, true, "codex-acp 0.13 (@zed-industries/codex-acp)", ""},
		{[]string{"codex-acp"}, "codex-acp", "0.16.0", 1, true, "codex-acp 0.14–0.16", ""},
		{[]string{"npx", "-y", "@zed-industries/codex-acp@0.16.0"}, "codex-acp", "0.16.0", 1, true, "codex-acp 0.14–0.16", ""},
		{[]string{"codex-acp"}, "codex-acp", "0.12.0", 1, false, "@zed-industries/codex-acp 0.12.0: outside", ""},
		{[]string{"codex-acp"}, "@agentclientprotocol/codex-acp", "2.6.0", 1, true, "codex-acp 2.6 (@agentclientprotocol/codex-acp", "codex-acp"},
		{[]string{"npx", "-y", "@agentclientprotocol/codex-acp"}, "@agentclientprotocol/codex-acp", "2.6.0", 1, true, "codex-acp 2.6", "codex-acp"},
		{[]string{"node", "/t/node_modules/@agentclientprotocol/codex-acp/dist/index.js"}, "codex-acp", "2.6.0", 1, true, "codex-acp 2.6", "codex-acp"},
		{[]string{"npx", "-y", "@agentclientprotocol/codex-acp@1.6.0"}, "codex-acp", "1.6.0", 1, false, "@agentclientprotocol/codex-acp 1.6.0: outside", "codex-acp"},
		{[]string{"npx", "-y", "@agentclientprotocol/codex-acp@2.7.0"}, "@agentclientprotocol/codex-acp", "2.7.0", 1, false, "@agentclientprotocol/codex-acp 2.7.0: outside", "codex-acp"},
		{[]string{"claude-agent-acp"}, "@zed-industries/claude-agent-acp", "0.23.1", 1, true, "claude-agent-acp 0.23", ""},
		{[]string{"claude-agent-acp"}, "@agentclientprotocol/claude-agent-acp", "0.101.0", 1, true, "claude-agent-acp 0.100–0.101", "claude-acp"},
		{[]string{"claude-agent-acp"}, "@agentclientprotocol/claude-agent-acp", "0.49.0", 1, false, "@agentclientprotocol/claude-agent-acp 0.49.0: outside", "claude-acp"},
		{[]string{"gemini", "--acp"}, "gemini-cli", "0.61.0", 1, true, "gemini-cli 0.61", "gemini"},
		{[]string{"gemini", "--acp"}, "gemini-cli", "0.56.0", 1, false, "@google/gemini-cli 0.56.0: outside", "gemini"},
		{[]string{"opencode", "acp"}, "OpenCode", "1.18.33", 1, true, "opencode 1.18", "opencode"},
		{[]string{"npx", "@qwen-code/qwen-code", "--acp"}, "qwen-code", "0.24.4", 1, true, "qwen-code 0.24", "qwen-code"},
		{[]string{"npx", "@qwen-code/qwen-code", "--acp"}, "qwen-code", "0.21.14", 1, false, "@qwen-code/qwen-code 0.21.14: outside", "qwen-code"},
		{[]string{"npx", "-y", "@kilocode/cli", "acp"}, "Kilo", "7.7.7", 1, true, "kilo 7.7", "kilo"},
		{[]string{"kilo", "acp"}, "Kilo", "7.7.7", 1, true, "kilo 7.7", "kilo"},
		{[]string{"npx", "-y", "@kilocode/cli", "acp"}, "kilo", "7.4.22", 1, false, "@kilocode/cli 7.4.22: outside", "kilo"},
		{[]string{"cline", "--acp"}, "cline", "3.0.65", 1, true, "cline 3.0", "cline"},
		{[]string{"npx", "-y", "cline", "--acp"}, "cline", "3.0.65", 1, true, "cline 3.0", "cline"},
		{[]string{"npx", "-y", "cline", "--acp"}, "cline", "2.18.0", 1, false, "cline 2.18.0: outside", "cline"},
		{[]string{"pi-acp"}, "pi-acp", "0.0.34", 1, true, "pi-acp 0.0", "pi-acp"},
		{[]string{"npx", "-y", "pi-acp"}, "pi-acp", "0.0.34", 1, true, "pi-acp 0.0", "pi-acp"},
		{[]string{"npx", "-y", "pi-acp@0.1.0"}, "pi-acp", "0.1.0", 1, false, "pi-acp 0.1.0: outside", "pi-acp"},
		{[]string{"goose", "acp"}, "goose", "1.46.0", 1, false, "not one the proxy is proven against", "goose"},
		// Registry agents the snapshot of 30 (a probe report) lacked.
		{[]string{"npx", "-y", "@qoder-ai/qodercli", "--acp"}, "qodercli", "0.2.14", 1, false, "not one the proxy is proven against", "qoder"},
		{[]string{"/opt/vibe/vibe-acp"}, "vibe", "2.24.1", 1, false, "not one the proxy is proven against", "mistral-vibe"},
		{[]string{"npx", "@tencent-ai/codebuddy-code", "--acp"}, "", "", 1, false, "not one the proxy is proven against", "codebuddy-code"},
		{[]string{"/opt/kimi/kimi", "acp"}, "Kimi Code CLI", "1.49.0", 1, false, "not one the proxy is proven against", "kimi"},
		{[]string{"claude-agent-acp"}, "@agentclientprotocol/claude-agent-acp", "0.101.0", 2, true, "an ACP v2 agent", "claude-acp"},
		{[]string{"my-agent"}, "my-agent", "1.0", 1, false, "not one the proxy is proven against", ""},
		{[]string{"my-agent"}, "", "", 1, false, "not one the proxy is proven against", ""},
	}
	for _, c := range cases {
		a := identify(&Answer{ProtocolVersion: c.protocol, Info: AgentInfo{Name: c.name, Version: c.version}}, c.argv)
		what := strings.Join(c.argv, " ") + " / " + c.name + " " + c.version
		assert.Equal(t, c.known, a.Known, what)
		assert.True(t, strings.HasPrefix(a.Name, c.as), "%s: %s", what, a.Name)
		assert.Equal(t, c.known, strings.HasPrefix(a.Proven, "yes: "), "%s: %s", what, a.Proven)
		if c.registryID == "" {
			assert.Nil(t, a.Registry, what)
		} else if assert.NotNil(t, a.Registry, what) {
			assert.Equal(t, c.registryID, a.Registry.ID, what)
		}
		for _, f := range filterset.Filters {
			assert.NotEmpty(t, a.Filters[f].ZedLike.Why, "%s: %s", what, f)
			assert.NotEmpty(t, a.Filters[f].Plain.Why, "%s: %s", what, f)
		}
	}
}

// The flags doctor advises for each kind of client are exactly those that
// act on the agent's traffic, as measured against the real releases.
func TestAdvisedFlagsAreTheOnesThatAct(t *testing.T) {
	cases := []struct {
		argv           []string
		name, version  string
		zedLike, plain []string
	}{
		{[]string{"codex-acp"}, "codex-acp", "0.13.0",
			[]string{ShellToPatch, Deltas, TerminalOutput}, []string{ShellToPatch, Deltas, TerminalOutput}},
		{[]string{"codex-acp"}, "codex-acp", "0.16.0",
			[]string{ShellToPatch, TerminalOutput}, []string{ShellToPatch, TerminalOutput}},
		// 2.x streams appends (nothing for --deltas), saves no outputs, and
		// streams terminal_output itself to a client that declares it.
		{[]string{"npx", "@agentclientprotocol/codex-acp"}, "@agentclientprotocol/codex-acp", "2.6.0",
			[]string{ShellToPatch}, []string{ShellToPatch, TerminalOutput}},
		{[]string{"claude-agent-acp"}, "@agentclientprotocol/claude-agent-acp", "0.101.0",
			[]string{ShellToPatch, TerminalOutput, ExpandPersistedOutput}, []string{ShellToPatch, TerminalOutput, ExpandPersistedOutput}},
		{[]string{"gemini", "--acp"}, "gemini-cli", "0.61.0", nil, nil},
		{[]string{"opencode", "acp"}, "OpenCode", "1.18.33",
			[]string{ShellToPatch, Deltas, ExpandPersistedOutput}, []string{ShellToPatch, Deltas, ExpandPersistedOutput}},
		{[]string{"kilo", "acp"}, "Kilo", "7.7.7", []string{ShellToPatch, Deltas}, []string{ShellToPatch, Deltas}},
		{[]string{"qwen", "--acp"}, "qwen-code", "0.24.4", nil, nil},
		{[]string{"cline", "--acp"}, "cline", "3.0.65", []string{Deltas}, []string{Deltas}},
		// pi-acp streams terminal_output to every client, unasked.
		{[]string{"pi-acp"}, "pi-acp", "0.0.34", nil, []string{TerminalOutput}},
	}
	for _, c := range cases {
		r := NewReport(&Answer{ProtocolVersion: 1, Info: AgentInfo{Name: c.name, Version: c.version}}, c.argv, "/opt/acp-proxy", nil)
		assert.Equal(t, c.zedLike, r.flagsFor(zedLike), "%s %s, Zed-like", c.name, c.version)
		assert.Equal(t, c.plain, r.flagsFor(plain), "%s %s, plain", c.name, c.version)
	}
	// On ACP v2 only shell-to-patch acts: v2 streams display terminals itself.
	for _, name := range []string{"@agentclientprotocol/claude-agent-acp", "@agentclientprotocol/codex-acp"} {
		r := NewReport(&Answer{ProtocolVersion: 2, Info: AgentInfo{Name: name, Version: "9"}}, []string{"agent"}, "/opt/acp-proxy", nil)
		assert.Equal(t, []string{ShellToPatch}, r.flagsFor(zedLike), "%s on v2, Zed-like", name)
		assert.Equal(t, []string{ShellToPatch}, r.flagsFor(plain), "%s on v2, plain", name)
	}
}

func TestReportSaysWhatHelpsAndTheFlagsForEachEditor(t *testing.T) {
	cases := []struct {
		name, version string
		given         []string
		want          []string
	}{
		{"codex-acp", "0.13.0", []string{Deltas}, []string{
			`Agent:      codex-acp 0.13.0 ("T")`,
			"Known as:   codex-acp 0.13 (@zed-industries/codex-acp)\n" +
				"Proven:     yes: the project's real-agent tests run @zed-industries/codex-acp 0.13.0\n" +
				"Registry:   not an agent of the ACP registry (its 40 agents as of 2026-08-22)\n",
			"Protocol:   ACP v1",
			"  _meta: x\n  auth\n  loadSession\n  mcpCapabilities: none\n  promptCapabilities: image\n",
			"  key (env_var): Use KEY.",
			"  --deltas (given)\n    Zed-like: helps: its updates re-send the whole output so far; they become deltas\n",
			"  Zed (Zed-like):                                --shell-to-patch --deltas --terminal-output\n",
			"  agent-shell, codecompanion, acpx (plain):      --shell-to-patch --deltas --terminal-output\n",
			`"args": ["--shell-to-patch", "--deltas", "--terminal-output", "--", "/bin/codex-acp", "--x"]`,
			`(setq agent-shell-openai-codex-acp-command '("/opt/acp-proxy" "--shell-to-patch" "--deltas" "--terminal-output" "--" "/bin/codex-acp" "--x"))`,
			"        codex = function()\n          return require(\"codecompanion.adapters\").extend(\"codex\", {\n",
			`            defaults = { auth_method = "key" },`,
			`    interactions = { chat = { adapter = "codex" } },`,
			`acpx --agent '/opt/acp-proxy --shell-to-patch --deltas --terminal-output -- /bin/codex-acp --x' exec 'hello'`,
		}},
		{"codex-acp", "0.16.0", []string{Deltas, ExpandPersistedOutput}, []string{
			"You gave --deltas: for this agent it changes nothing.",
			"You gave --expand-persisted-output: for this agent it changes nothing.",
			"  Zed (Zed-like):                                --shell-to-patch --terminal-output\n",
		}},
		{"gemini-cli", "0.61.0", nil, []string{
			"  Zed (Zed-like):                                none: a byte-exact relay\n",
			`Note: On its default shell (a PTY) it shows no command output at all;`,
			`acpx --agent '/opt/acp-proxy -- /bin/codex-acp --x' exec 'hello'`,
		}},
		{"@agentclientprotocol/codex-acp", "2.6.0", []string{Deltas}, []string{
			"Known as:   codex-acp 2.6 (@agentclientprotocol/codex-acp, the registry's Codex)\n" +
				"Proven:     yes: the project's real-agent tests run @agentclientprotocol/codex-acp 2.6.0\n" +
				`Registry:   codex-acp ("Codex"): @agentclientprotocol/codex-acp, as of 2026-08-22` + "\n",
			"Note: It answers ACP v2 to a client that asks for protocol version 2",
			"You gave --deltas: for this agent it changes nothing.",
			"  Zed (Zed-like):                                --shell-to-patch\n",
			"  agent-shell, codecompanion, acpx (plain):      --shell-to-patch --terminal-output\n",
		}},
		{"@agentclientprotocol/claude-agent-acp", "0.49.0", nil, []string{
			"Known as:   @agentclientprotocol/claude-agent-acp 0.49.0: outside the releases the proxy is proven against",
			"Proven:     no: 0.49.0 is outside the proven releases of @agentclientprotocol/claude-agent-acp\n            (0.100–0.101)\n",
			`Registry:   claude-acp ("Claude Agent"): @agentclientprotocol/claude-agent-acp, as of 2026-08-22` + "\n",
		}},
		{"@augmentcode/auggie", "0.35.0", nil, []string{
			"Known as:   not one the proxy is proven against: this is the general advice",
			"Proven:     no: the project's real-agent tests do not run it; this is the general advice\n",
			`Registry:   auggie ("Auggie CLI"): @augmentcode/auggie, as of 2026-08-22` + "\n",
		}},
		{"my-agent", "1.0", nil, []string{
			"Known as:   not one the proxy is proven against: this is the general advice",
			"Registry:   not an agent of the ACP registry",
			"  Zed (Zed-like):                                --shell-to-patch --terminal-output\n",
			"  JetBrains (not published: both kinds' flags):  --shell-to-patch --deltas --terminal-output\n",
			"  agent-shell, codecompanion, acpx (plain):      --shell-to-patch --deltas --terminal-output\n",
			"agent-shell (Emacs), as the command of the agent's configuration:",
			`"agent_servers": {"my-agent (proxy)": {"type": "custom", "command": "/opt/acp-proxy"`,
			`To watch a session live, add "--serve", ":0", "--log-file", "~/acp-proxy.log" before "--" in any`,
			`To send its spans to Jaeger, Grafana Tempo or any OpenTelemetry collector, add "--otel-endpoint",`,
		}},
	}
	for _, c := range cases {
		var a Answer
		require.NoError(t, json.Unmarshal(json.RawMessage(mustResult(t, answerLine(c.name, c.version, 1))), &a))
		a.Path = "/bin/codex-acp"
		var out bytes.Buffer
		require.NoError(t, NewReport(&a, []string{"codex-acp", "--x"}, "/opt/acp-proxy", c.given).WriteText(&out))
		for _, want := range c.want {
			assert.Contains(t, out.String(), want, "%s %s", c.name, c.version)
		}
	}
}

func mustResult(t *testing.T, line string) []byte {
	var msg struct{ Result json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(line), &msg))
	return msg.Result
}

func TestQuotingForEachConfig(t *testing.T) {
	argv := []string{"/a b/agent", `say "hi"`, "it's"}
	assert.Equal(t, `("/a b/agent" "say \"hi\"" "it's")`, lispList(argv))
	assert.Equal(t, `{ "/a b/agent", "say \"hi\"", "it's" }`, luaList(argv))
	assert.Equal(t, `'"/a b/agent" "say \"hi\"" "it'\''s"'`, shellQuote(commandLine(argv)))
	assert.Equal(t, `["/a b/agent", "say \"hi\"", "it's"]`, jsonList(argv))
}

func TestVersionBelow(t *testing.T) {
	for v, want := range map[string]bool{"0.13.0": true, "0.13": true, "0.14.0": false, "0.14.0-rc.1": false, "1.0.0": false, "0.9.9": true,
		"x.y": true, "": true, "0.100.0": false} {
		assert.Equal(t, want, versionBelow(v, "0.14"), v)
	}
	assert.Equal(t, "0.17", nextMinor("0.16"))
}

// The Session line says whether the agent started a session; one that
// refused until its user signs in is not called working, even a proven
// release, and the report says how to sign it in. An answer without
// agentInfo or sign-in methods says so.
func TestReportSaysWhetherTheAgentStartedASession(t *testing.T) {
	authRequired := &Session{Refused: &RPCError{Code: -32000, Message: "Authentication required"}}
	cases := []struct {
		name    string
		answer  Answer
		argv    []string
		want    []string
		notWant []string
	}{
		{"started", Answer{Info: AgentInfo{Name: "codex-acp", Version: "0.16.0"}, Session: &Session{ID: "s-1"}}, []string{"codex-acp"},
			[]string{"Proven:     yes: the project's real-agent tests run @zed-industries/codex-acp 0.16.0\n",
				"Session:    session/new started one (s-1): an editor that starts it as things are gets a session\n"},
			[]string{"does not work as things are"}},
		{"a proven release that needs a sign-in", Answer{Info: AgentInfo{Name: "codex-acp", Version: "0.16.0"}, Session: authRequired,
			AuthMethods: []AuthMethod{{ID: "chatgpt"}, {ID: "codex-api-key", Type: "env_var", Vars: []AuthVar{{"CODEX_API_KEY"}}}}},
			[]string{"codex-acp"},
			[]string{"but here it started no session (Session, below): it does not work as things are",
				"Session:    refused: it needs a sign-in first (Authentication required (code -32000)). To sign in: set CODEX_API_KEY",
				"no config starts a session until it is signed in."},
			[]string{"started one"}},
		{"no agentInfo, no sign-in methods", Answer{NoInfo: true, Session: authRequired},
			[]string{"npx", "@augmentcode/auggie", "--acp"},
			[]string{"Agent:      no agentInfo in its answer (ACP leaves it optional): known by its command only\n",
				"Sign-in methods:\n  none advertised: no editor can sign it in",
				"To sign in: run `auggie login` in a terminal"},
			nil},
		{"refused otherwise", Answer{Info: AgentInfo{Name: "x"}, Session: &Session{Refused: &RPCError{Code: -32602, Message: "cwd must be absolute"}}},
			[]string{"x"}, []string{"Session:    refused: cwd must be absolute (code -32602); an editor gets the same answer\n"}, []string{"To sign in"}},
		{"no answer", Answer{Info: AgentInfo{Name: "x"}, Session: &Session{NoAnswer: "x did not answer session/new within 30s"}},
			[]string{"x"}, []string{"Session:    no session: x did not answer session/new within 30s\n"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReport(&c.answer, c.argv, "/opt/acp-proxy", nil)
			r.LookupEnv = func(string) (string, bool) { return "", false }
			var out bytes.Buffer
			require.NoError(t, r.WriteText(&out))
			words := strings.Join(strings.Fields(out.String()), " ")
			for _, want := range c.want {
				if strings.Contains(want, "\n") {
					assert.Contains(t, out.String(), want)
				} else {
					assert.Contains(t, words, strings.Join(strings.Fields(want), " "))
				}
			}
			for _, not := range c.notWant {
				assert.NotContains(t, words, not)
			}
		})
	}
}
