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

func TestProbeReadsTheAnswerToInitialize(t *testing.T) {
	argv := emitting(t,
		"starting up...\n",
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`+"\n",
		`{"jsonrpc":"2.0","id":7,"result":{}}`+"\n",
		answerLine("codex-acp", "0.13.0", 1))
	a, err := Probe(context.Background(), argv, nil, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 1, a.ProtocolVersion)
	assert.Equal(t, AgentInfo{Name: "codex-acp", Title: "T", Version: "0.13.0"}, a.Info)
	assert.Equal(t, []AuthMethod{{ID: "key", Name: "Use KEY", Type: "env_var"}}, a.AuthMethods)
	assert.Equal(t, []string{"starting up..."}, a.NotJSON, "a line an editor could not read")
	assert.Equal(t, argv[0], a.Path)
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

func TestAgentsAreRecognisedByAgentInfo(t *testing.T) {
	cases := []struct {
		name, version string
		protocol      int
		known         bool
		as            string
	}{
		{"codex-acp", "0.13.0", 1, true, "codex-acp ≤ 0.13"},
		{"codex-acp", "0.16.0", 1, true, "codex-acp ≥ 0.14"},
		{"@zed-industries/claude-agent-acp", "0.23.1", 1, true, "claude-agent-acp 0.23"},
		{"@agentclientprotocol/claude-agent-acp", "0.101.0", 1, true, "claude-agent-acp ≥ 0.100"},
		{"gemini-cli", "0.61.0", 1, true, "gemini-cli"},
		{"OpenCode", "1.18.33", 1, true, "opencode"},
		{"@agentclientprotocol/claude-agent-acp", "0.101.0", 2, true, "an ACP v2 agent"},
		{"my-agent", "1.0", 1, false, "not one the proxy is proven against"},
		{"", "", 1, false, "not one the proxy is proven against"},
	}
	for _, c := range cases {
		a := identify(&Answer{ProtocolVersion: c.protocol, Info: AgentInfo{Name: c.name, Version: c.version}})
		assert.Equal(t, c.known, a.Known, "%s %s", c.name, c.version)
		assert.True(t, strings.HasPrefix(a.Name, c.as), "%s %s: %s", c.name, c.version, a.Name)
		for _, f := range filterset.Filters {
			assert.NotEmpty(t, a.Filters[f].ZedLike.Why, "%s: %s", c.name, f)
			assert.NotEmpty(t, a.Filters[f].Plain.Why, "%s: %s", c.name, f)
		}
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
			"Known as:   codex-acp ≤ 0.13",
			"Protocol:   ACP v1",
			"  _meta: x\n  auth\n  loadSession\n  mcpCapabilities: none\n  promptCapabilities: image\n",
			"  key (env_var): Use KEY.",
			"  --deltas (given)\n    Zed-like: helps: its updates re-send the whole output so far; they become deltas\n",
			"  Zed (Zed-like):                                --shell-to-patch --deltas --terminal-output\n",
			"  agent-shell, codecompanion, acpx (plain):      --shell-to-patch --deltas --terminal-output\n",
			`"args": ["--shell-to-patch", "--deltas", "--terminal-output", "--", "/bin/codex-acp", "--x"]`,
			`(setq agent-shell-openai-codex-acp-command '("/opt/acp-proxy" "--shell-to-patch" "--deltas" "--terminal-output" "--" "/bin/codex-acp" "--x"))`,
			`in adapters.acp.codex, extending "codex"`,
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
		{"my-agent", "1.0", nil, []string{
			"Known as:   not one the proxy is proven against: this is the general advice",
			"  Zed (Zed-like):                                --shell-to-patch --terminal-output\n",
			"  JetBrains (not published: both kinds' flags):  --shell-to-patch --deltas --terminal-output\n",
			"  agent-shell, codecompanion, acpx (plain):      --shell-to-patch --deltas --terminal-output\n",
			"agent-shell (Emacs), as the command of the agent's configuration:",
			`"agent_servers": {"my-agent (proxy)": {"type": "custom", "command": "/opt/acp-proxy"`,
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
	for v, want := range map[string]bool{"0.13.0": true, "0.13": true, "0.14.0": false, "1.0.0": false, "0.9.9": true, "x.y": false, "": false} {
		assert.Equal(t, want, versionBelow(v, 0, 14), v)
	}
}
