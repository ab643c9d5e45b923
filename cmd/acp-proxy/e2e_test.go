package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/linediff"
	"github.com/acp-proxy/acp-proxy/internal/procgroup"
	"github.com/acp-proxy/acp-proxy/internal/testbin"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the real binary around internal/fakeagent, the way an
// editor runs it around an agent.

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// proxyBin is this command, built; fakeAgent is internal/fakeagent.
func proxyBin(t testing.TB) string  { return testbin.Build(t, "./cmd/acp-proxy") }
func fakeAgent(t testing.TB) string { return testbin.Build(t, "./internal/fakeagent") }

// session is one run of the proxy binary.
type session struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	stdout     *bufio.Reader
	stdoutFile io.Closer // what stdout reads
	stderr     *bytes.Buffer
}

// patient gives the agent a minute to exit after the proxy's stdin closes
// (--grace 1m) when a test runs the live proxy: an agent that exits on EOF
// by itself must never be stopped because the machine is slow. A --grace
// among args comes later and wins.
func patient(args []string) []string {
	if len(args) > 0 && subcommands[args[0]] != nil {
		return args
	}
	return append([]string{"--grace", "1m"}, args...)
}

func start(t *testing.T, args ...string) *session {
	t.Helper()
	cmd := exec.Command(proxyBin(t), patient(args)...)
	cmd.WaitDelay = 5 * time.Second // an agent left behind keeps stderr open
	s := &session{cmd: cmd, stderr: &bytes.Buffer{}}
	var err error
	s.stdin, err = cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	s.stdout, s.stdoutFile = bufio.NewReaderSize(out, 1<<20), out
	cmd.Stderr = s.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return s
}

// wait waits for the proxy to exit and returns its status.
func (s *session) wait(t *testing.T) int {
	t.Helper()
	err := s.cmd.Wait()
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
	}
	return s.cmd.ProcessState.ExitCode()
}

// runProxy runs the proxy to completion with stdin and returns stdout,
// stderr and the exit status.
func runProxy(t *testing.T, stdin []byte, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command(proxyBin(t), patient(args)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "stderr: %s", e.String())
	}
	return o.Bytes(), e.Bytes(), cmd.ProcessState.ExitCode()
}

// binaryVersion is the version the proxy binary the tests run says it has. It is not the test
// binary's versionString(): go build stamps a clean checkout's commit into the binaries it
// builds (-buildvcs=auto, Go's default) and go test does not stamp the test binary.
func binaryVersion(t *testing.T) string {
	t.Helper()
	out, stderr, code := runProxy(t, nil, "--version")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	v, ok := strings.CutPrefix(strings.TrimSuffix(string(out), "\n"), "acp-proxy ")
	require.True(t, ok, "--version printed %q", out)
	return v
}

func corpus(t *testing.T) []byte {
	b, err := os.ReadFile("../../testdata/transparency/corpus.jsonl")
	require.NoError(t, err)
	return b
}

func TestEveryLineOfTheCorpusCrossesBothDirectionsByteForByte(t *testing.T) {
	in := corpus(t)
	out, stderr, code := runProxy(t, in, "--", fakeAgent(t), "--echo")
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	sameBytes(t, in, out)
}

func TestAgentOutputIsByteForByteWithAllFiltersOff(t *testing.T) {
	in := corpus(t)
	f := filepath.Join(t.TempDir(), "corpus")
	require.NoError(t, os.WriteFile(f, in, 0o644))
	out, stderr, code := runProxy(t, nil, "--", fakeAgent(t), "--emit", f)
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	sameBytes(t, in, out)
}

func TestNestedProxiesAreTransparent(t *testing.T) {
	in := corpus(t)
	out, stderr, code := runProxy(t, in, "--", proxyBin(t), "--grace", "1m", "--", proxyBin(t), "--grace", "1m", "--", fakeAgent(t), "--echo")
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	sameBytes(t, in, out)
}

func TestA200MBLineRelaysIntactInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("200 MB through pipes")
	}
	for _, flags := range [][]string{nil, {"--terminal-output", "--deltas", "--show-changes"}} {
		t.Run(fmt.Sprintf("flags %q", flags), func(t *testing.T) { relayHugeLine(t, flags) })
	}
}

// relayHugeLine relays a 200 MB line through the proxy run with flags and
// checks it arrives exactly, in bounded memory.
func relayHugeLine(t *testing.T, flags []string) {
	const size = 200 << 20
	// The editor stays until the line is through: closing stdin first would
	// start the --grace countdown while the 200 MB are still being written.
	cmd := exec.Command(proxyBin(t), append(flags, "--", fakeAgent(t), "--huge", fmt.Sprint(size))...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	h := sha256.New()
	n, err := io.CopyN(h, stdout, size+1)
	require.NoError(t, err)
	require.NoError(t, stdin.Close())
	rest, err := io.ReadAll(stdout)
	require.NoError(t, err)
	assert.Empty(t, rest, "nothing after the line")
	require.NoError(t, cmd.Wait())

	want := sha256.New()
	head, tail := `{"jsonrpc":"2.0","method":"x","params":"`, "\"}\n"
	want.Write([]byte(head))
	// In pieces: a test holding 200 MB would count in the RSS of the next
	// proxy it starts (a child's peak includes what it shared before exec).
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for left := size - len(head) - len(tail) + 1; left > 0; left -= len(chunk) {
		want.Write(chunk[:min(left, len(chunk))])
	}
	want.Write([]byte(tail))
	assert.Equal(t, int64(size+1), n)
	assert.Equal(t, want.Sum(nil), h.Sum(nil), "the line arrives exactly")
	maxRSS := peakRSS(cmd.ProcessState)
	t.Logf("proxy peak RSS for a %d MB line: %.1f MB", size>>20, float64(maxRSS)/(1<<20))
	assert.Less(t, maxRSS, int64(2*size+32<<20), "peak RSS ≤ 2× the line + 32 MB")
}

func TestAgentCrashMidLineDeliversEverythingAndReportsTheSignal(t *testing.T) {
	in := corpus(t)
	f := filepath.Join(t.TempDir(), "corpus")
	require.NoError(t, os.WriteFile(f, in, 0o644))
	out, _, code := runProxy(t, nil, "--", fakeAgent(t), "--emit", f, "--crash", `{"jsonrpc":"2.0","method":"cut`)
	assert.Equal(t, string(in)+`{"jsonrpc":"2.0","method":"cut`, string(out))
	assert.Equal(t, 128+int(syscall.SIGKILL), code)
}

func TestExitStatusIsTheAgents(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--exit", "0"}, 0},
		{[]string{"--exit", "3"}, 3},
		{[]string{"--die-signal", "15"}, 143},
		{[]string{"--die-signal", "2"}, 130},
	} {
		_, _, code := runProxy(t, nil, append([]string{"--", fakeAgent(t)}, c.args...)...)
		assert.Equal(t, c.want, code, "%v", c.args)
	}
}

func TestSignalsAreForwardedToTheAgent(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		s := start(t, "--", fakeAgent(t), "--report-signals", "--echo")
		// The agent is up once it echoes; then the proxy has its handlers.
		fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","method":"ping"}`)
		line, err := s.stdout.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, `{"jsonrpc":"2.0","method":"ping"}`+"\n", line)
		require.NoError(t, s.cmd.Process.Signal(sig))
		line, err = s.stdout.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("{\"signal\":%q}\n", sig.String()), line)
		assert.Equal(t, 128+int(sig), s.wait(t), sig.String())
	}
}

func TestClientEOFStopsAnAgentThatIgnoresIt(t *testing.T) {
	cases := []struct {
		name  string
		grace string
		args  []string
		want  int
	}{
		// The grace never runs out for an agent that exits on EOF, and
		// what it is only matters for the agent that must die of SIGTERM:
		// it has that long to be scheduled and die before SIGKILL.
		{"exits on EOF", "1m", []string{"--exit", "0"}, 0},
		{"ignores EOF: SIGTERM", "5s", []string{"--ignore-eof"}, 128 + int(syscall.SIGTERM)},
		{"ignores EOF and SIGTERM: SIGKILL", "200ms", []string{"--ignore-eof", "--ignore-term"}, 128 + int(syscall.SIGKILL)},
		{"no grace: SIGKILL right after SIGTERM", "0", []string{"--ignore-eof", "--ignore-term"}, 128 + int(syscall.SIGKILL)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, append([]string{"--grace", c.grace, "--", fakeAgent(t), "--echo"}, c.args...)...)
			fmt.Fprintln(s.stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
			line, err := s.stdout.ReadString('\n')
			require.NoError(t, err)
			require.Contains(t, line, "initialize")
			require.NoError(t, s.stdin.Close())
			assert.Equal(t, c.want, s.wait(t))
			// The agent is gone too: nothing holds the proxy's stdout.
			rest, _ := io.ReadAll(s.stdout)
			assert.Empty(t, rest)
		})
	}
}

func TestAgentDiesWithAProxyKilledBySIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: closing the job kills the agent; the fake agent's signals are Unix's")
	}
	// An editor that kills the proxy outright must not leave behind an
	// agent that ignores EOF and SIGTERM.
	// The agent gets its stdin's EOF, its grace, SIGTERM, and SIGKILL a
	// grace later, from the reaper the proxy left behind.
	s := start(t, "--grace", "200ms", "--", fakeAgent(t), "--print-pid", "--ignore-eof", "--ignore-term")
	var hello struct{ PID int }
	line, err := s.stdout.ReadString('\n')
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(line), &hello))
	require.True(t, procgroup.Alive(hello.PID), "the agent runs")
	t.Cleanup(func() { kill(hello.PID) })

	require.NoError(t, s.cmd.Process.Kill())
	_ = s.cmd.Wait()
	assert.Eventually(t, func() bool { return !procgroup.Alive(hello.PID) }, 10*time.Second, 10*time.Millisecond,
		"agent %d still runs after the proxy was killed", hello.PID)
}

// An npm agent is a node launcher whose child is the real agent; here the
// child ignores EOF and SIGTERM. However the session ends, neither may
// outlive it, and the status stays the agent's. The child is in the
// agent's process group, or, as codex starts each command, in a session of
// its own, out of reach of any signal to the group (Linux: the reaper is a
// child subreaper, and finds it all the same).
func TestNothingTheAgentStartedOutlivesTheSession(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows ends the agent's job; the fake agent's signals are Unix's")
	}
	cases := []struct {
		name string
		args []string
		end  func(t *testing.T, s *session)
		want int // -1: the proxy was killed
	}{
		{"the editor closes stdin; the agent ignores it", []string{"--grace", "200ms", "--", fakeAgent(t), "--ignore-eof"},
			func(t *testing.T, s *session) { require.NoError(t, s.stdin.Close()) }, 128 + int(syscall.SIGTERM)},
		{"the editor dies: stdin and stdout close", []string{"--grace", "200ms", "--", fakeAgent(t), "--ignore-eof"},
			func(t *testing.T, s *session) { s.editorDies(t) }, 128 + int(syscall.SIGTERM)},
		// 2s: the agent's grace after EOF, long enough for it to exit by
		// itself, and then its child's after SIGTERM.
		{"the agent exits by itself at EOF", []string{"--grace", "2s", "--", fakeAgent(t), "--exit", "3"},
			func(t *testing.T, s *session) { require.NoError(t, s.stdin.Close()) }, 3},
		{"Ctrl-C reaches the agent's tree", []string{"--grace", "200ms", "--", fakeAgent(t), "--ignore-eof"},
			func(t *testing.T, s *session) { require.NoError(t, s.cmd.Process.Signal(syscall.SIGINT)) }, 128 + int(syscall.SIGINT)},
		{"the proxy gets SIGTERM", []string{"--grace", "200ms", "--", fakeAgent(t), "--ignore-eof"},
			func(t *testing.T, s *session) { require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM)) }, 128 + int(syscall.SIGTERM)},
		{"the editor kills the proxy", []string{"--grace", "200ms", "--", fakeAgent(t), "--ignore-eof", "--ignore-term"},
			func(t *testing.T, s *session) { require.NoError(t, s.cmd.Process.Kill()) }, -1},
	}
	for _, where := range []string{"in the agent's group", "in a session of its own"} {
		for _, c := range cases {
			t.Run(where+"/"+c.name, func(t *testing.T) {
				if where != "in the agent's group" && runtime.GOOS != "linux" {
					t.Skip("only Linux has a child subreaper: elsewhere an orphan out of the agent's group is not found")
				}
				args := append(c.args[:len(c.args):len(c.args)], "--print-pid", "--child")
				if where != "in the agent's group" {
					args = append(args, "--setsid")
				}
				s := start(t, args...)
				pids := s.agentAndChild(t)
				c.end(t, s)
				status := s.wait(t)
				if c.want >= 0 {
					assert.Equal(t, c.want, status)
				}
				for i, what := range []string{"agent", "agent's child"} {
					assert.Eventually(t, func() bool { return !procgroup.Alive(pids[i]) }, 10*time.Second, 10*time.Millisecond,
						"the %s (%d) outlived the session", what, pids[i])
				}
			})
		}
	}
}

// agentAndChild reads the pids the fake agent prints with --print-pid
// --child, checks both run, and kills them when the test ends, so that
// a failure leaves nothing behind.
func (s *session) agentAndChild(t *testing.T) [2]int {
	t.Helper()
	var pids [2]int
	for i, key := range []string{"pid", "child"} {
		line, err := s.stdout.ReadString('\n')
		require.NoError(t, err)
		var m map[string]int
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		pids[i] = m[key]
		require.True(t, procgroup.Alive(pids[i]), "the %s runs", key)
		t.Cleanup(func() { kill(pids[i]) })
	}
	return pids
}

// editorDies closes both ends of the proxy's stdio the test holds, as the
// kernel closes them when the editor is killed.
func (s *session) editorDies(t *testing.T) {
	t.Helper()
	require.NoError(t, s.stdin.Close())
	require.NoError(t, s.stdoutFile.Close())
}

func TestAgentThatClosesStdoutButKeepsRunning(t *testing.T) {
	s := start(t, "--", fakeAgent(t), "--close-stdout", "--exit", "4")
	rest, err := io.ReadAll(s.stdout)
	require.NoError(t, err, "the editor sees EOF on the agent's stream")
	assert.Empty(t, rest)
	done := make(chan int, 1)
	go func() { done <- s.wait(t) }()
	select {
	case code := <-done:
		require.FailNowf(t, "the proxy exited while the agent was still running", "exit code %d", code)
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, s.stdin.Close())
	assert.Equal(t, 4, <-done)
}

// An agent that is not installed, whose command doctor knows, gets the package it comes with
// and the line that installs it, on the one line of the error, from the proxy and from doctor.
func TestAnAgentNotInstalledGetsItsInstallLine(t *testing.T) {
	proxyBin(t) // built with go, which the PATH below has not
	t.Setenv("PATH", t.TempDir())
	const want = "codex-acp: command not found; codex-acp comes with the npm package @agentclientprotocol/codex-acp " +
		"(or @zed-industries/codex-acp): npm install -g --prefix ~/.local @agentclientprotocol/codex-acp\n"
	_, stderr, code := runProxy(t, nil, "--", "codex-acp")
	assert.Equal(t, 127, code)
	assert.Equal(t, "acp-proxy: "+want, string(stderr))
	_, stderr, code = runProxy(t, nil, "doctor", "--", "codex-acp")
	assert.Equal(t, 127, code)
	assert.Equal(t, "acp-proxy doctor: "+want, string(stderr))
}

// An editor's config has no shell to expand ~: the proxy expands it in the agent's command line
// as in --record, the command and its arguments alike, and doctor does too.
func TestTildeInTheAgentCommandIsTheHomeDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.Mkdir(filepath.Join(home, "bin"), 0o755))
	require.NoError(t, os.Symlink(fakeAgent(t), filepath.Join(home, "bin", "agent")))
	line := `{"jsonrpc":"2.0","method":"from/the/file"}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(home, "emit.jsonl"), []byte(line), 0o644))
	out, stderr, code := runProxy(t, nil, "--", "~/bin/agent", "--emit", "~/emit.jsonl")
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(t, line, string(out))

	answer := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"codex-acp","title":"Codex","version":"0.16.0"},"authMethods":[]}}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(home, "answer.jsonl"), []byte(answer), 0o644))
	out, stderr, code = runProxy(t, nil, "doctor", "--", "~/bin/agent", "--emit", "~/answer.jsonl")
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Contains(t, string(out), `Agent:      codex-acp 0.16.0 ("Codex")`)
}

func TestMissingOrNonExecutableAgent(t *testing.T) {
	_, stderr, code := runProxy(t, nil, "--", "acp-proxy-no-such-agent")
	assert.Equal(t, 127, code)
	assert.Equal(t, "acp-proxy: acp-proxy-no-such-agent: command not found\n", string(stderr))

	f := filepath.Join(t.TempDir(), "agent")
	require.NoError(t, os.WriteFile(f, []byte("#!/bin/sh\n"), 0o644))
	_, stderr, code = runProxy(t, nil, "--", f)
	assert.Equal(t, 126, code)
	assert.Equal(t, 1, bytes.Count(stderr, []byte("\n")), "one line: %s", stderr)
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"cat"}, {"--"}, {"--no-such-flag", "--", "cat"}, {"--log-level", "loud", "--", "cat"}, {"--log-file", os.DevNull, "--log-level", "loud", "--", "cat"}} {
		_, stderr, code := runProxy(t, nil, args...)
		assert.Equal(t, 2, code, "%q: %s", args, stderr)
		assert.NotEmpty(t, stderr)
	}
	out, _, code := runProxy(t, nil, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, string(out), "acp-proxy [flags] -- AGENT [ARGS...]")
	out, _, code = runProxy(t, nil, "--version")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(string(out), "acp-proxy "))
}

func TestAgentStderrPassesThroughAndLogsGoToTheLogFile(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "proxy.log")
	in := []byte(`{"jsonrpc":"2.0","method":"x"}` + "\n")
	out, stderr, code := runProxy(t, in, "--log-file", logFile, "--log-level", "debug", "--stats", "--", fakeAgent(t), "--echo", "--stderr", "agent says hi\x01\n")
	assert.Equal(t, 0, code)
	assert.Equal(t, string(in), string(out), "only ACP on stdout")
	assert.Equal(t, "agent says hi\x01\n", string(stderr), "the agent's stderr, untouched, and nothing else")
	logs, err := os.ReadFile(logFile)
	require.NoError(t, err)
	assert.Contains(t, string(logs), `"msg":"agent started"`)
	assert.Contains(t, string(logs), `"msg":"stats"`)
}

func TestRecordThenReplayWithoutFiltersReproducesTheSession(t *testing.T) {
	in := corpus(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	out, _, code := runProxy(t, in, "--record", trace, "--", fakeAgent(t), "--echo")
	require.Equal(t, 0, code)
	require.Equal(t, string(in), string(out))

	replayed, stderr, code := runProxy(t, nil, "replay", trace)
	require.Equal(t, 0, code, "%s", stderr)
	recorded, err := os.ReadFile(trace)
	require.NoError(t, err)
	sameBytes(t, recorded, replayed) // with no filters a replay is the recording
}

func TestTerminalStdinRunsTheAgentDirectly(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) not installed: no way to give the proxy a terminal")
	}
	// script gives the command a pseudo-terminal as stdin and stdout.
	cmd := exec.Command(script, "-qec", proxyBin(t)+" --record x.jsonl -- sh -c 'test -t 0 && test -t 1 && echo on-a-tty; exit 5'", "/dev/null")
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, string(out), "on-a-tty")
	// Someone trying the proxy by hand learns that nothing was relayed.
	assert.Contains(t, string(out), "acp-proxy: stdin is a terminal, not an ACP client: running sh directly, without filters, --record or --log-file")
	assert.NoFileExists(t, filepath.Join(cmd.Dir, "x.jsonl"))
	assert.Equal(t, 5, cmd.ProcessState.ExitCode())
}

// sameBytes fails with the first differing line rather than both streams.
func sameBytes(t *testing.T, want, got []byte) {
	t.Helper()
	require.Empty(t, linediff.Streams(want, got), "the streams differ")
}
