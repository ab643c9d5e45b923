package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
	"github.com/acp-proxy/acp-proxy/internal/testbin"
)

// readmeHome is the home directory README.md's commands and configs use.
const readmeHome = "/home/you"

// readmeCommands is every command README.md shows in a code block, with how
// it is kept true: a test of this file runs it as written (in a temporary
// HOME, with the commands it names on PATH), or the reason it cannot run
// here and what runs instead. TestReadmeCommandsAreAllListed keeps the two
// in step.
var readmeCommands = map[string]string{
	"go run ./cmd/acp-proxy replay --summary --terminal-output --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl": "run, with the built acp-proxy for go run ./cmd/acp-proxy: its output is the table the README prints after it",
	"bash .ci/run": "not run by a test: it is CI, which runs every test",
	"GOBIN=~/.local/bin go install ./cmd/acp-proxy":                                                                                   "run",
	"go build -o ~/.local/bin/acp-proxy ./cmd/acp-proxy":                                                                              "run",
	"sha256sum --ignore-missing -c acp-proxy_1.2.3_checksums.txt":                                                                     "run, on an archive and checksums named and laid out as GoReleaser's",
	"tar -xzf acp-proxy_1.2.3_linux_amd64.tar.gz -C ~/.local/bin acp-proxy":                                                           "run, after the sha256sum line",
	"npm install -g --prefix ~/.local @zed-industries/codex-acp":                                                                      "not run: it fetches from the npm registry; scripts/install-agents installs the same package, and TestDoctorKnowsEveryRealAgentByName runs the command it installs by name",
	"acp-proxy doctor -- codex-acp":                                                                                                   "run, with codex-acp 0.16 installed",
	"acpx --agent '/home/you/.local/bin/acp-proxy --terminal-output --deltas -- /home/you/.local/bin/codex-acp' exec 'run the tests'": "run, through the real acpx and codex-acp 0.16 against a mock model",
	"acp-proxy [flags] -- AGENT [ARGS...]":                                                                                            "synopsis: found in acp-proxy --help",
	"acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]":                                                                  "synopsis: found in acp-proxy replay --help",
	"acp-proxy replay --redact [TRACE|-]":                                                                                             "synopsis: found in acp-proxy replay --help",
	"acp-proxy replay --redact ~/acp.jsonl.gz > shared.jsonl":                                                                         "run, with a recorded trace gzip'd as ~/acp.jsonl.gz",
	"acp-proxy view shared.jsonl":                                                                                                     "run, after the --redact line",
	"acp-proxy view [filter flags] [-o FILE.html] [TRACE|-]":                                                                          "synopsis: found in acp-proxy view --help",
	"acp-proxy doctor [filter flags] [--timeout D] -- AGENT [ARGS...]":                                                                "synopsis: found in acp-proxy doctor --help",
	"acp-proxy view --follow [--serve HOST:PORT] TRACE":                                                                               "synopsis: found in acp-proxy view --help",
	"jq -r 'select(.msg==\"live view\") | .url' ~/acp-proxy.log | tail -n 1":                                                          "run, on the log of a proxy run with --serve :0 --log-file ~/acp-proxy.log: it prints the URL the proxy printed on stderr",
	"acp-proxy view --follow /tmp/session.jsonl":                                                                                      "run, on a trace in a temporary directory in place of /tmp/session.jsonl: the URL it prints serves the page, with a record appended after it started; Ctrl-C (SIGINT) ends it",
	"LIVE_SCREENSHOT=$PWD/docs/live.png go test ./cmd/acp-proxy -run 'TestViewFollowInBrowser$' -count=1":                             "not run from here: it is a go test of its own (TestViewFollowInBrowser, which runs in every test run), and would rewrite docs/live.png",
	"acp-proxy replay --deltas < in.jsonl | acp-proxy replay --summary":                                                               "run, with a recorded trace as in.jsonl",
	"acp-proxy replay --terminal-output trace.jsonl | jq -c 'select(.dir==\"agent->client\") | .msg.params.update.sessionUpdate'":     "run, with a recorded trace as trace.jsonl",
	"acp-proxy view --terminal-output --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl":                                      "run, on a copy of the trace",
	"OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 acp-proxy --shell-to-patch -- codex-acp":                                       "not run as written: it needs a collector on localhost:4318 and an editor on stdin; TestOtelSpansInJaeger runs acp-proxy --shell-to-patch with OTEL_EXPORTER_OTLP_ENDPOINT set to a Jaeger it started, between a client and real agents, and TestOtelExportFromTheBinary (cmd/acp-proxy) the variable and the flag against an OTLP receiver in the test",
	"acp-proxy --otel-endpoint http://localhost:4318 --shell-to-patch -- codex-acp":                                                   "not run as written: as the line before it (TestOtelExportFromTheBinary runs --otel-endpoint)",
	"JAEGER_UI_ASSETS=/path/to/jaeger-ui/packages/jaeger-ui/build JAEGER_SCREENSHOT=$PWD/docs/jaeger.png go test ./internal/e2e -run 'TestOtelSpansInJaeger$' -count=1": "not run from here: it is a go test of its own (TestOtelSpansInJaeger, which runs in every test run with jaeger installed), needs a jaeger-ui build, and would rewrite docs/jaeger.png",
	"acp-proxy policy check --policy FILE TRACE...":                                                                            "synopsis: found in acp-proxy policy --help",
	"acp-proxy policy check --policy docs/starter.policy testdata/traces/codex-2.6-plain-writes-ask.jsonl":                     "run, in the module's root: its output is the table the README prints after it (TestReadmePolicy)",
	"acp-proxy --policy ~/.config/acp-proxy/policy -- codex-acp":                                                               "not run as written: it needs an editor on stdin; TestPolicyBindsThroughTheBinary (cmd/acp-proxy) runs acp-proxy --policy FILE between a client and an agent, TestPolicyMalformedStopsAtStart a malformed FILE, and TestReadmePolicy checks that the starter file the README shows is docs/starter.policy",
	"VIEW_SCREENSHOT=$PWD/docs/view.png go test ./cmd/acp-proxy -run 'TestViewInBrowser$/codex-0.13-plain-shell-900' -count=1": "not run from here: it is a go test of its own (TestViewInBrowser, which runs in every test run), and would rewrite docs/view.png",
}

// readmeBlocks returns README.md's lines in indented code blocks (its
// commands) and, for each fenced block, its lines.
func readme(t *testing.T) (commands []string, fenced [][]string) {
	t.Helper()
	root, err := testbin.ModuleRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	var block []string
	in := false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "```") && !in:
			in, block = true, nil
		case strings.HasPrefix(line, "```"):
			in, fenced = false, append(fenced, block)
		case in:
			block = append(block, line)
		case strings.HasPrefix(line, "    ") && strings.TrimSpace(line) != "":
			commands = append(commands, strings.TrimSpace(line))
		}
	}
	return commands, fenced
}

func TestReadmeCommandsAreAllListed(t *testing.T) {
	commands, _ := readme(t)
	seen := map[string]bool{}
	for _, c := range commands {
		seen[c] = true
		assert.Contains(t, readmeCommands, c, "a README command no test runs: add it to readmeCommands, with how it is run")
	}
	for c := range readmeCommands {
		assert.True(t, seen[c], "readmeCommands lists a command the README no longer shows: %s", c)
	}
}

// readmeEnv is a temporary HOME with acp-proxy in ~/.local/bin, as the
// README's install steps put it, and that directory first on PATH.
type readmeEnv struct {
	home, bin string
	env       []string
}

func newReadmeEnv(t *testing.T, base []string) readmeEnv {
	t.Helper()
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink(proxyBin(t), filepath.Join(bin, "acp-proxy")))
	e := readmeEnv{home: home, bin: bin}
	for _, kv := range base {
		switch {
		case strings.HasPrefix(kv, "PATH="):
			kv = "PATH=" + bin + string(filepath.ListSeparator) + strings.TrimPrefix(kv, "PATH=")
		case strings.HasPrefix(kv, "HOME="):
			continue
		}
		e.env = append(e.env, kv)
	}
	e.env = append(append(e.env, "HOME="+home), goDirs(t)...)
	return e
}

// goDirs keeps go's caches where they are when HOME moves: a go command
// run as the README shows it then builds from the warm cache.
func goDirs(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	require.NoError(t, err)
	dirs := strings.Fields(string(out))
	require.Len(t, dirs, 3)
	return []string{"GOCACHE=" + dirs[0], "GOMODCACHE=" + dirs[1], "GOPATH=" + dirs[2]}
}

// sh runs line as the README shows it, with sh, in dir.
func (e readmeEnv) sh(t *testing.T, dir, line string) (stdout string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 10 * time.Second
	require.NoError(t, cmd.Run(), "%s\nstderr: %s", line, errb.String())
	return out.String()
}

func moduleRoot(t *testing.T) string {
	root, err := testbin.ModuleRoot()
	require.NoError(t, err)
	return root
}

func TestReadmeRunItShowsWhatItPrints(t *testing.T) {
	const line = "go run ./cmd/acp-proxy replay --summary --terminal-output --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl"
	_, fenced := readme(t)
	var want string
	for _, block := range fenced {
		if len(block) > 0 && block[0] == "$ "+line {
			want = strings.Join(block[1:], "\n") + "\n"
		}
	}
	require.NotEmpty(t, want, "the README prints the output of: %s", line)
	e := newReadmeEnv(t, os.Environ())
	// go run would build what the test binary already built.
	got := e.sh(t, moduleRoot(t), strings.Replace(line, "go run ./cmd/acp-proxy", "acp-proxy", 1))
	assert.Equal(t, want, trimLineEnds(got))
}

func TestReadmeInstallSteps(t *testing.T) {
	e := newReadmeEnv(t, os.Environ())
	for _, line := range []string{"GOBIN=~/.local/bin go install ./cmd/acp-proxy", "go build -o ~/.local/bin/acp-proxy ./cmd/acp-proxy"} {
		require.NoError(t, os.Remove(filepath.Join(e.bin, "acp-proxy")))
		e.sh(t, moduleRoot(t), line)
		assert.True(t, strings.HasPrefix(e.sh(t, e.home, "acp-proxy --version"), "acp-proxy "), line)
	}

	// A release archive and its checksums, as GoReleaser names them.
	require.NoError(t, os.Remove(filepath.Join(e.bin, "acp-proxy")))
	dl := t.TempDir()
	staged := t.TempDir()
	require.NoError(t, os.Symlink(proxyBin(t), filepath.Join(staged, "acp-proxy")))
	e.sh(t, dl, "tar -czhf acp-proxy_1.2.3_linux_amd64.tar.gz -C "+staged+" acp-proxy && "+
		"sha256sum acp-proxy_1.2.3_linux_amd64.tar.gz > acp-proxy_1.2.3_checksums.txt && "+
		"echo '0000  acp-proxy_1.2.3_windows_amd64.zip' >> acp-proxy_1.2.3_checksums.txt")
	e.sh(t, dl, "sha256sum --ignore-missing -c acp-proxy_1.2.3_checksums.txt")
	e.sh(t, dl, "tar -xzf acp-proxy_1.2.3_linux_amd64.tar.gz -C ~/.local/bin acp-proxy")
	assert.True(t, strings.HasPrefix(e.sh(t, e.home, "acp-proxy --version"), "acp-proxy "))
}

// No release is published and the npm name acp-proxy is not the project's:
// a command that fetches either would fail, or run a stranger's package.
func TestReadmeInstallsOnlyWhatExists(t *testing.T) {
	commands, _ := readme(t)
	for _, c := range commands {
		assert.NotRegexp(t, `\bnpx( -y)? acp-proxy\b`, c, "acp-proxy on npm is not the project's")
		assert.NotContains(t, c, "go install github.com/acp-proxy/", "no module version is published to fetch")
	}
}

func TestReadmeSynopsesAreTheHelps(t *testing.T) {
	e := newReadmeEnv(t, os.Environ())
	for line := range readmeCommands {
		if !strings.HasPrefix(readmeCommands[line], "synopsis") {
			continue
		}
		help := "acp-proxy --help"
		if sub := strings.Fields(line)[1]; !strings.HasPrefix(sub, "[") {
			help = "acp-proxy " + sub + " --help"
		}
		assert.Contains(t, e.sh(t, e.home, help), line)
	}
}

func TestReadmeReplayAndViewCommands(t *testing.T) {
	e := newReadmeEnv(t, os.Environ())
	dir := t.TempDir()
	trace, err := os.ReadFile(filepath.Join(tracesDir(t), "codex-0.13-plain-shell-900.jsonl"))
	require.NoError(t, err)
	for _, name := range []string{"in.jsonl", "trace.jsonl", "testdata/traces/codex-0.13-plain-shell-900.jsonl"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), trace, 0o644))
	}
	out := e.sh(t, dir, "acp-proxy replay --deltas < in.jsonl | acp-proxy replay --summary")
	assert.Contains(t, out, "agent->client")

	if _, err := exec.LookPath("jq"); err == nil || os.Getenv("REQUIRE_SHELLS") != "" {
		out = e.sh(t, dir, `acp-proxy replay --terminal-output trace.jsonl | jq -c 'select(.dir=="agent->client") | .msg.params.update.sessionUpdate'`)
		assert.Contains(t, out, `"tool_call_update"`)
	} else {
		t.Log("jq not installed (CI installs it): the README's jq line is not run")
	}

	e.sh(t, dir, "acp-proxy view --terminal-output --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl")
	page, err := os.ReadFile(filepath.Join(dir, "testdata/traces/codex-0.13-plain-shell-900.html"))
	require.NoError(t, err, "view writes the page beside the trace")
	assert.Contains(t, string(page), "<html")

	// Sharing a trace: a gzip'd one in the home directory, redacted.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(trace)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(e.home, "acp.jsonl.gz"), gz.Bytes(), 0o644))
	e.sh(t, dir, "acp-proxy replay --redact ~/acp.jsonl.gz > shared.jsonl")
	shared, err := os.ReadFile(filepath.Join(dir, "shared.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, bytes.Count(trace, []byte("\n")), bytes.Count(shared, []byte("\n")), "record for record")
	assert.Contains(t, string(shared), `"method":"session/update"`)
	assert.NotContains(t, string(shared), "seq 1 900", "the command is gone")
	e.sh(t, dir, "acp-proxy view shared.jsonl")
	page, err = os.ReadFile(filepath.Join(dir, "shared.html"))
	require.NoError(t, err, "view writes the page beside the trace")
	assert.Contains(t, string(page), "<html")
}

// The agent commands: codex-acp installed in ~/.local/bin, as the README's
// npm line puts it, run by doctor and through the real acpx.
func TestReadmeAgentCommands(t *testing.T) {
	model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{"echo the tests pass"}})
	agent := realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: model.BaseURL()})
	e := newReadmeEnv(t, agent.Env)
	e.env = append(e.env, "CODEX_HOME="+agent.ConfigDir) // after HOME: codex's own config
	require.NoError(t, os.Symlink(filepath.Join(nodeModules(t, agent), ".bin", "codex-acp"), filepath.Join(e.bin, "codex-acp")))

	out := e.sh(t, agent.Dir, "acp-proxy doctor -- codex-acp")
	assert.Contains(t, out, "Known as:   codex-acp 0.14–0.16")
	assert.Contains(t, out, `"command": "`+filepath.Join(e.bin, "acp-proxy")+`"`)

	// The README's agent-shell and codecompanion configs are doctor's for
	// codex-acp 0.16 with CODEX_API_KEY set, in /home/you.
	out = strings.ReplaceAll(e.sh(t, agent.Dir, "CODEX_API_KEY=dummy acp-proxy doctor -- codex-acp"), e.home, readmeHome)
	_, fenced := readme(t)
	assert.Contains(t, fenced, []string{strings.TrimSpace(lineStarting(t, out, "  (setq agent-shell-openai-codex-acp-command"))},
		"the README's agent-shell config is doctor's")
	assert.Contains(t, fenced, indentedBlock(t, out, `  require("codecompanion").setup({`, "  })"),
		"the README's codecompanion config is doctor's")

	const acpx = "acpx --agent '/home/you/.local/bin/acp-proxy --terminal-output --deltas -- /home/you/.local/bin/codex-acp' exec 'run the tests'"
	args := shellWords(t, e, strings.TrimPrefix(strings.ReplaceAll(acpx, readmeHome, e.home), "acpx "))
	run, err := realagent.RunAcpx(t, e.env, agent.Dir, 3*time.Minute, args...)
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", run.Stdout, run.Stderr)
	assert.Contains(t, run.Stdout, "the tests pass")
	assert.Contains(t, run.Stdout, "[done] end_turn")
}

// lineStarting is the line of text that starts with prefix.
func lineStarting(t *testing.T, text, prefix string) string {
	t.Helper()
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSuffix(line, "\n")
		}
	}
	require.FailNowf(t, "no line starts with "+prefix, "%s", text)
	return ""
}

// indentedBlock is the lines of text from first to last, both included,
// without their two-space indent.
func indentedBlock(t *testing.T, text, first, last string) []string {
	t.Helper()
	var block []string
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if line == first || len(block) > 0 {
			block = append(block, strings.TrimPrefix(line, "  "))
		}
		if len(block) > 0 && line == last {
			return block
		}
	}
	require.FailNowf(t, "no block from "+first, "%s", text)
	return nil
}

// shellWords splits line as sh does.
func shellWords(t *testing.T, e readmeEnv, line string) []string {
	out := e.sh(t, e.home, `printf '%s\n' `+line)
	var words []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		words = append(words, sc.Text())
	}
	return words
}

// trimLineEnds drops the spaces that end each line (Markdown keeps none).
func trimLineEnds(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(strings.TrimRight(line, " \n"))
		b.WriteString("\n")
	}
	return b.String()
}

// The live view's commands: the URL of a --serve proxy found in its log,
// and view --follow of a trace being written, stopped by Ctrl-C.
func TestReadmeLiveViewCommands(t *testing.T) {
	e := newReadmeEnv(t, os.Environ())
	url := regexp.MustCompile(`live view at (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]+)\n`)
	cmd := exec.Command("sh", "-c", `echo '{"jsonrpc":"2.0","method":"x"}' | acp-proxy --serve :0 --log-file ~/acp-proxy.log -- cat`)
	cmd.Dir, cmd.Env = e.home, e.env
	stderr, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", stderr)
	printed := url.FindStringSubmatch(string(stderr))
	require.NotNil(t, printed, "no URL on stderr: %s", stderr)
	if _, err := exec.LookPath("jq"); err == nil || os.Getenv("REQUIRE_SHELLS") != "" {
		out := e.sh(t, e.home, `jq -r 'select(.msg=="live view") | .url' ~/acp-proxy.log | tail -n 1`)
		assert.Equal(t, printed[1]+"\n", out)
	} else {
		t.Log("jq not installed (CI installs it): the README's jq line is not run")
	}

	dir := t.TempDir()
	trace := filepath.Join(dir, "session.jsonl")
	record := `{"t":0.5,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"%s"}]}}}` + "\n"
	require.NoError(t, os.WriteFile(trace, fmt.Appendf(nil, record, "the first prompt"), 0o644))
	follow := exec.Command("sh", "-c", "exec "+strings.Replace("acp-proxy view --follow /tmp/session.jsonl", "/tmp/session.jsonl", trace, 1))
	follow.Env = e.env
	errPipe, err := follow.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, follow.Start())
	t.Cleanup(func() { _ = follow.Process.Kill(); _ = follow.Wait() })
	lines := bufio.NewReader(errPipe)
	first, err := lines.ReadString('\n')
	require.NoError(t, err)
	m := url.FindStringSubmatch(first)
	require.NotNil(t, m, "the first line is the URL: %s", first)
	f, err := os.OpenFile(trace, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(f, record, "a prompt appended later")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	resp, err := http.Get(strings.Replace(m[1], "/?token=", "/events?token=", 1))
	require.NoError(t, err)
	defer resp.Body.Close()
	events := bufio.NewReaderSize(resp.Body, 1<<20)
	for {
		line, err := events.ReadString('\n')
		require.NoError(t, err, "the page never showed the appended record")
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, "a prompt appended later") {
			break
		}
	}
	require.NoError(t, follow.Process.Signal(syscall.SIGINT))
	require.NoError(t, follow.Wait(), "Ctrl-C ends it")
}

// The Policy section: the starter it shows is docs/starter.policy, and policy check prints what
// the README says it prints.
func TestReadmePolicy(t *testing.T) {
	const line = "acp-proxy policy check --policy docs/starter.policy testdata/traces/codex-2.6-plain-writes-ask.jsonl"
	_, fenced := readme(t)
	starter, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "starter.policy"))
	require.NoError(t, err)
	var want string
	shown := false
	for _, block := range fenced {
		if len(block) > 0 && block[0] == "$ "+line {
			want = strings.Join(block[1:], "\n") + "\n"
		}
		if strings.Join(block, "\n")+"\n" == string(starter) {
			shown = true
		}
	}
	assert.True(t, shown, "the README shows docs/starter.policy as it is")
	require.NotEmpty(t, want, "the README prints the output of: %s", line)
	e := newReadmeEnv(t, os.Environ())
	assert.Equal(t, want, trimLineEnds(e.sh(t, moduleRoot(t), line)))
}
