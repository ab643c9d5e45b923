package e2e

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// Re-recording the traces in testdata/traces (see its README.md):
//
//	go test ./internal/e2e -run TestRecordFixtures -record-fixtures -count=1
//	go test ./internal/e2e -run 'TestRecordFixtures/claude-0.23-zed-5$' -record-fixtures -count=1
//	scripts/make-big-trace    # -record-big: the generated 35,001-line trace only
//
// Each trace is what `acp-proxy --record FILE -- AGENT` wrote with no
// filter, around a real agent driven by the test client and a mock model.
var (
	recordFixtures = flag.Bool("record-fixtures", false, "re-record the traces in testdata/traces from the real agents (overwrites them)")
	recordBig      = flag.Bool("record-big", false, "with -record-fixtures: record only the generated traces (the 35,001-line one, 0.2–1.5 GB), not the committed ones")
)

// The commands the mock model asks for. They are fixed, so re-recording
// gives the same traffic, up to timing, ids and temporary paths.
const (
	// fiveLinesSlow streams over about 0.25 s, so that the coalescing
	// interval (100 ms) merges some updates and not others.
	fiveLinesSlow = "for i in $(seq 1 5); do echo line $i; sleep 0.05; done"
	// mediumLines is the line count of the committed snapshot trace: every
	// snapshot repeats the output so far, so its size grows with the
	// square of it; this many keeps the file under about 5 MB.
	mediumLines = 900
	// persistedLines print over 30,000 characters, which the Claude CLI
	// saves to a file and shows as a <persisted-output> preview.
	persistedLines = 4000
	// bigLines is the generated trace's command (docs/agents.md, "Measured:
	// a 35,001-line command").
	bigLines = 35001
	// fiveLinesSlowLiteral is fiveLinesSlow without the command
	// substitution gemini-cli refuses.
	fiveLinesSlowLiteral = "for i in 1 2 3 4 5; do echo line $i; sleep 0.05; done"
	// opencodeLines is enough output for opencode to stream many
	// snapshots and to truncate its final update (over 2,000 lines or
	// 50 KB, it says).
	opencodeLines = 2000
	// heredocFile and heredocContent are what the heredoc fixtures write.
	heredocFile    = "hello.py"
	heredocContent = "# written by a heredoc: $HOME and `date` stay literal\nprint(\"hello, world\")\n"
)

func linesCommand(n int) string { return fmt.Sprintf("for i in $(seq 1 %d); do echo line $i; done", n) }

// agentLinesCommand is linesCommand for agent: gemini-cli refuses a
// command substitution, so it gets seq's own formatting, which prints the
// same lines.
func agentLinesCommand(agent string, n int) string {
	if strings.HasPrefix(agent, "gemini") {
		return fmt.Sprintf("seq -f 'line %%.0f' 1 %d", n)
	}
	return linesCommand(n)
}

// polledLines runs for about 2 s, well past the 250 ms the polled fixture
// gives exec_command, so the model polls it twice or more.
const polledLines = "for i in $(seq 1 40); do echo line $i; sleep 0.05; done"

// codex26Writes are the writes the shell-to-patch proof for codex-acp 2.x
// shows: a heredoc, an append and a sed -i on a file the session starts
// with (codex26Files), then ls, which writes nothing.
var codex26Writes = []string{heredocScript, "echo 'appended line' >> notes.txt", "sed -i 's/draft/final/' notes.txt", "ls"}

var codex26Files = map[string]string{"notes.txt": "a draft note\n"}

// heredocScript writes heredocContent with a quoted heredoc, the way models
// write files from a shell tool.
var heredocScript = mockmodel.HeredocWrite(heredocFile, heredocContent)

// fixture is one recorded trace.
type fixture struct {
	name     string // the file is testdata/traces/<name>.jsonl
	agent    string // "codex-0.13", "codex-0.16", "claude-0.23"
	zed      bool   // the client advertises the terminal-output extension
	unified  bool   // codex: exec_command (a PTY) instead of shell/shell_command
	policy   string // codex approval_policy; "" is "never"
	commands []string
	calls    []mockmodel.Call  // the agent's other tools, called after the commands
	files    map[string]string // the project's files before the session
	// execYield: codex's exec_command returns to the model after this
	// long, and the model polls the still-running command (write_stdin).
	execYield time.Duration
	prompt    string
	// generated traces are too big to commit; scripts/make-big-trace
	// makes them (-record-big).
	generated bool
}

// fixtures are the recorded traces. Names: agent and version, client
// (plain: no extension; zed: Zed's terminal-output _meta), the codex shell
// tool (shell: shell on 0.13, shell_command on 0.16; exec: unified exec's
// exec_command), and what the command does.
var fixtures = []fixture{
	{name: "codex-0.13-plain-shell-5", agent: "codex-0.13", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.13-zed-shell-5", agent: "codex-0.13", zed: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.13-plain-exec-5", agent: "codex-0.13", unified: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.13-zed-exec-5", agent: "codex-0.13", zed: true, unified: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.16-plain-shell-5", agent: "codex-0.16", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.16-zed-shell-5", agent: "codex-0.16", zed: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.16-plain-exec-5", agent: "codex-0.16", unified: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-0.16-zed-exec-5", agent: "codex-0.16", zed: true, unified: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "claude-0.23-plain-5", agent: "claude-0.23", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "claude-0.23-zed-5", agent: "claude-0.23", zed: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: fmt.Sprintf("claude-0.23-plain-persisted-%d", persistedLines), agent: "claude-0.23", commands: []string{linesCommand(persistedLines)}, prompt: "print many lines"},
	{name: fmt.Sprintf("claude-0.23-zed-persisted-%d", persistedLines), agent: "claude-0.23", zed: true, commands: []string{linesCommand(persistedLines)}, prompt: "print many lines"},
	{name: "codex-0.13-plain-heredoc", agent: "codex-0.13", commands: []string{heredocScript, "ls"}, prompt: "write hello.py, then list the files"},
	{name: "codex-0.16-zed-heredoc-untrusted", agent: "codex-0.16", zed: true, policy: "untrusted", commands: []string{heredocScript, "ls"}, prompt: "write hello.py, then list the files"},
	{name: "claude-0.23-zed-heredoc", agent: "claude-0.23", zed: true, commands: []string{heredocScript, "ls"}, prompt: "write hello.py, then list the files"},
	{name: fmt.Sprintf("codex-0.13-plain-shell-%d", mediumLines), agent: "codex-0.13", commands: []string{linesCommand(mediumLines)}, prompt: "print many lines"},
	{name: fmt.Sprintf("codex-0.13-plain-%d", bigLines), agent: "codex-0.13", commands: []string{linesCommand(bigLines)}, prompt: "print many lines", generated: true},
	// The current releases.
	{name: "claude-0.101-plain-5", agent: "claude-0.101", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "claude-0.101-zed-5", agent: "claude-0.101", zed: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: fmt.Sprintf("claude-0.101-plain-persisted-%d", persistedLines), agent: "claude-0.101", commands: []string{linesCommand(persistedLines)}, prompt: "print many lines"},
	{name: fmt.Sprintf("claude-0.101-zed-persisted-%d", persistedLines), agent: "claude-0.101", zed: true, commands: []string{linesCommand(persistedLines)}, prompt: "print many lines"},
	{name: "gemini-0.61-plain-5", agent: "gemini", commands: []string{fiveLinesSlowLiteral}, prompt: "print five lines"},
	{name: "gemini-0.61-zed-nopty-5", agent: "gemini-nopty", zed: true, commands: []string{fiveLinesSlowLiteral}, prompt: "print five lines"},
	{name: "opencode-1.18-zed-5", agent: "opencode", zed: true, policy: "ask", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: fmt.Sprintf("opencode-1.18-plain-%d", opencodeLines), agent: "opencode", commands: []string{linesCommand(opencodeLines)}, prompt: "print many lines"},
	// The ACP registry's Codex: @agentclientprotocol/codex-acp 2.x, always
	// exec_command on a PTY. policy is its mode (INITIAL_AGENT_MODE).
	{name: "codex-2.6-plain-5", agent: "codex-2.6", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "codex-2.6-zed-5", agent: "codex-2.6", zed: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: fmt.Sprintf("codex-2.6-plain-%d", opencodeLines), agent: "codex-2.6", commands: []string{linesCommand(opencodeLines)}, prompt: "print many lines"},
	{name: "codex-2.6-plain-polled-40", agent: "codex-2.6", commands: []string{polledLines}, execYield: 250 * time.Millisecond, prompt: "print lines slowly"},
	{name: "codex-2.6-plain-writes-ask", agent: "codex-2.6", policy: "workspace-write", commands: codex26Writes, files: codex26Files, prompt: "write the files"},
	{name: "opencode-1.18-plain-edit-ask", agent: "opencode", policy: "ask", calls: opencodeEditCalls, files: opencodeEditFiles, prompt: "edit the files"},
	// grok-build 1.0 (grok agent stdio) in its default mode: it asks before the command.
	{name: "grok-1.0-plain-5", agent: "grok", commands: []string{fiveLinesSlow}, prompt: "print five lines"},
	{name: "grok-1.0-zed-5", agent: "grok", zed: true, commands: []string{fiveLinesSlow}, prompt: "print five lines"},
}

// TestRecordFixtures re-records testdata/traces/*.jsonl. It runs only with
// -record-fixtures, so that ordinary test runs never rewrite them.
func TestRecordFixtures(t *testing.T) {
	if !*recordFixtures {
		t.Skip("re-records testdata/traces; run with -record-fixtures")
	}
	dir := tracesDir(t)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, fx := range fixtures {
		if fx.generated != *recordBig {
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			recordFixture(t, dir, fx)
		})
	}
}

// session is a real agent's launch configuration and its mock model.
type session struct {
	agent   *realagent.Agent
	replies func() []string // what the mock model answered, in order
}

// launch starts a mock model that asks for commands, one tool call each,
// and configures agent ("codex-0.13", "codex-0.16", "claude-0.23",
// "claude-0.101", "gemini" (on its PTY shell), "gemini-nopty" (without),
// "opencode", "kilo", "qwen", "cline", "pi" (pi-acp), "grok" (grok-build)) to use it: unified picks codex's exec_command tool, policy
// codex's approval_policy ("" is "never"; with "untrusted" codex asks
// before the write and not before ls, and still runs with full access, so
// no sandbox is needed), for opencode and kilo "ask" to ask permission, or
// qwen-code's approval mode ("" is "default", which asks before commands;
// cline always asks; pi never does; grok's "always-approve" asks nothing, "" its default). It skips (with REQUIRE_AGENTS=1, fails) when the agent is
// not installed.
func launch(t *testing.T, agent string, commands []string, unified bool, policy string) session {
	t.Helper()
	return launchScript(t, agent, mockmodel.Script{Commands: commands}, unified, policy)
}

// launchScript is launch with the mock model's whole script.
func launchScript(t *testing.T, agent string, script mockmodel.Script, unified bool, policy string) session {
	t.Helper()
	switch agent {
	case "claude-0.23", "claude-0.101":
		m := mockmodel.NewMessages(t, script)
		opts := realagent.ClaudeOptions{Version: strings.TrimPrefix(agent, "claude-"), ModelURL: m.URL()}
		return session{realagent.Claude(t, opts), func() []string { return replies(m.Requests()) }}
	case "gemini", "gemini-nopty":
		m := mockmodel.NewGemini(t, script)
		opts := realagent.GeminiOptions{ModelURL: m.URL(), NoPTY: agent == "gemini-nopty"}
		return session{realagent.Gemini(t, opts), func() []string { return replies(m.Requests()) }}
	case "opencode":
		m := mockmodel.NewChat(t, script)
		opts := realagent.OpencodeOptions{ModelBaseURL: m.BaseURL(), Ask: policy == "ask"}
		return session{realagent.Opencode(t, opts), func() []string { return replies(m.Requests()) }}
	case "kilo":
		m := mockmodel.NewChat(t, script)
		opts := realagent.KiloOptions{ModelBaseURL: m.BaseURL(), Ask: policy == "ask"}
		return session{realagent.Kilo(t, opts), func() []string { return replies(m.Requests()) }}
	case "qwen":
		m := mockmodel.NewChat(t, script)
		opts := realagent.QwenOptions{ModelBaseURL: m.BaseURL(), ApprovalMode: policy}
		return session{realagent.Qwen(t, opts), func() []string { return replies(m.Requests()) }}
	case "cline":
		m := mockmodel.NewChat(t, script)
		opts := realagent.ClineOptions{ModelBaseURL: m.BaseURL()}
		return session{realagent.Cline(t, opts), func() []string { return replies(m.Requests()) }}
	case "pi":
		m := mockmodel.NewChat(t, script)
		return session{realagent.Pi(t, realagent.PiOptions{ModelBaseURL: m.BaseURL()}), func() []string { return replies(m.Requests()) }}
	case "grok":
		m := mockmodel.NewChat(t, script)
		opts := realagent.GrokOptions{ModelBaseURL: m.BaseURL(), AlwaysApprove: policy == "always-approve"}
		return session{realagent.Grok(t, opts), func() []string { return replies(m.Requests()) }}
	case "codex-0.13", "codex-0.16":
		m := mockmodel.NewResponses(t, script)
		opts := realagent.CodexOptions{ModelBaseURL: m.BaseURL(), UnifiedExec: unified, ApprovalPolicy: policy}
		return session{realagent.Codex(t, strings.TrimPrefix(agent, "codex-"), opts), func() []string { return replies(m.Requests()) }}
	case "codex-2.6":
		// 2.x takes approval from its mode: "workspace-write" asks for a
		// command the model asks to run outside the sandbox.
		script.Escalate = policy == "workspace-write"
		m := mockmodel.NewResponses(t, script)
		opts := realagent.CodexOptions{ModelBaseURL: m.BaseURL(), UnifiedExec: true, AgentMode: policy}
		return session{realagent.Codex(t, "2.6", opts), func() []string { return replies(m.Requests()) }}
	}
	require.FailNowf(t, "unknown agent", "%q", agent)
	return session{}
}

func replies(reqs []mockmodel.Request) []string {
	var out []string
	for _, r := range reqs {
		// "": a request the mock had not answered yet when the session
		// ended (claude-agent-acp 0.10x asks for a prompt suggestion
		// after the turn, which may still be in flight).
		if r.Reply != "aux" && r.Reply != "probe" && r.Reply != "" {
			out = append(out, r.Reply)
		}
	}
	return out
}

// clientCaps is the test client's clientCapabilities: Zed's terminal-output
// _meta, or none.
func clientCaps(zed bool) string {
	if zed {
		return acpclient.ZedLikeCapabilities
	}
	return acpclient.PlainCapabilities
}

// recordFixture runs fx through `acp-proxy --record` and moves the trace,
// and any output file the Claude CLI saved, into dir.
func recordFixture(t *testing.T, dir string, fx fixture) {
	s := launchScript(t, fx.agent, mockmodel.Script{Commands: fx.commands, Calls: fx.calls, ExecYield: fx.execYield}, fx.unified, fx.policy)
	for rel, content := range fx.files {
		require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, rel), []byte(content), 0o644))
	}
	tmp, err := os.CreateTemp(dir, "."+fx.name+".*.tmp") // same filesystem: renamed into place
	require.NoError(t, err)
	tmp.Close()
	require.NoError(t, os.Chmod(tmp.Name(), 0o644))
	t.Cleanup(func() { os.Remove(tmp.Name()) })
	// The filters that read files run, so that the trace holds what they
	// read (the session's files as they were then); what they changed is
	// dropped from it afterwards (dropFilterOutput).
	opts := acpclient.Options{
		Argv:         append([]string{proxyBin(t), "--record", tmp.Name(), "--shell-to-patch", "--expand-persisted-output", "--"}, s.agent.Argv...),
		Env:          s.agent.Env,
		Dir:          s.agent.Dir,
		Capabilities: clientCaps(fx.zed),
	}
	if fx.generated {
		opts.Timeout = 20 * time.Minute
		opts.MaxRetainedBytes = 16 << 20
	}
	// The client stops the proxy when the subtest ends; only then is the
	// trace complete.
	var stats acpclient.Stats
	t.Run("session", func(t *testing.T) {
		start := time.Now()
		c := acpclient.Run(t, opts, fx.prompt)
		stats = c.Stats()
		p := c.Problems()
		assert.Empty(t, p, "client problems: %q", p)
		n := len(c.ToolCalls())
		assert.Equal(t, len(fx.commands)+len(fx.calls), n, "%d tool calls, want %d\n%s", n, len(fx.commands)+len(fx.calls), c.Report())
		t.Logf("%s: %v, %d messages, %d bytes to the client", fx.name, time.Since(start).Round(time.Millisecond), stats.Messages, stats.Bytes)
	})
	if t.Failed() {
		t.FailNow()
	}
	got := s.replies()
	require.GreaterOrEqual(t, len(got), 2, "model replies %q, want the tool calls then the answer", got)
	require.Equal(t, "answer", got[len(got)-1], "model replies %q, want the tool calls then the answer", got)
	dropFilterOutput(t, tmp.Name())
	checkRecording(t, tmp.Name(), fx, s.agent)

	require.NoError(t, os.Rename(tmp.Name(), filepath.Join(dir, fx.name+".jsonl")))
	fi, _ := os.Stat(filepath.Join(dir, fx.name+".jsonl"))
	t.Logf("wrote %s.jsonl: %d bytes", fx.name, fi.Size())
}

// checkRecording checks the trace is one a replay reads, unfiltered, and
// shows what the fixture is for.
func checkRecording(t *testing.T, path string, fx fixture, a *realagent.Agent) {
	t.Helper()
	recs := readTraceFile(t, path)
	for n, rec := range recs {
		require.False(t, rec.HasOut, "record %d has out: a filter's change is left in the trace", n+1)
		require.False(t, !rec.HasLine && rec.Read == nil, "record %d has out: a filter's change is left in the trace", n+1)
	}
	require.GreaterOrEqual(t, len(recs), 6, "only %d records", len(recs))
	// claude-agent-acp 0.23 and 0.101 without the extension show a
	// <persisted-output> preview; 0.101 with it streams the first 30 KB
	// and a note naming the saved file.
	if strings.Contains(fx.name, "persisted") && !fileContains(t, path, `<persisted-output>`) {
		assert.True(t, fileContains(t, path, `full output saved to`), "no <persisted-output> preview or saved-output note in the trace")
	}
	if slices.Contains(fx.commands, heredocScript) {
		got, err := os.ReadFile(filepath.Join(a.Dir, heredocFile))
		if assert.NoError(t, err) {
			assert.Equal(t, heredocContent, string(got), heredocFile)
		}
	}
}

func fileContains(t *testing.T, path, s string) bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 1<<20)
	var carry []byte
	for {
		n, err := f.Read(buf)
		chunk := append(carry, buf[:n]...)
		if bytes.Contains(chunk, []byte(s)) {
			return true
		}
		if len(chunk) > len(s) {
			carry = append([]byte(nil), chunk[len(chunk)-len(s):]...)
		}
		if err != nil {
			return false
		}
	}
}

// dropFilterOutput rewrites the trace at path as if no filter had changed a
// line: each record's "out" goes, and so do the lines the proxy added; the
// "read" records stay. Every other record is kept byte for byte.
func dropFilterOutput(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, err := trace.NewReader(bytes.NewReader(line)).Next()
		switch {
		case err != nil:
			require.NoError(t, err, path)
		case !rec.HasLine && rec.Read == nil:
			// a line the proxy added
		case rec.HasOut:
			out = append(trace.AppendHeader(out, rec.T, rec.Dir), ',')
			out = trace.AppendLine(out, rec.Line)
			if !rec.EOL {
				out = append(out, `,"eol":false`...)
			}
			out = append(out, "}\n"...)
		default:
			out = append(out, line...)
		}
	}
	require.NoError(t, os.WriteFile(path, out, 0o644))
}
