package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDoctorUsageErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"doctor"}, "acp-proxy doctor: missing -- before the agent command"},
		{[]string{"doctor", "codex-acp"}, "acp-proxy doctor: missing -- before the agent command"},
		{[]string{"doctor", "--"}, "acp-proxy doctor: missing agent command after --"},
		{[]string{"doctor", "--timeout", "0", "--", "x"}, "acp-proxy doctor: --timeout must be more than 0"},
		{[]string{"doctor", "--timeout", "-1s", "--", "x"}, `acp-proxy doctor: invalid argument "-1s" for "--timeout" flag: must not be negative`},
		{[]string{"doctor", "--live-tail-bytes", "1KiB", "--", "x"}, "acp-proxy doctor: --live-tail-bytes means nothing without --terminal-output or --deltas"},
		{[]string{"doctor", "--no-such-flag", "--", "x"}, "acp-proxy doctor: unknown flag: --no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "%q", c.args)
		assert.True(t, strings.HasPrefix(stderr.String(), c.says), "%q: %s", c.args, stderr.String())
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
		assert.Empty(t, stdout.String())
	}
}

// An agent that is not there, or does not answer, is one line and a
// non-zero exit; one that answers gets the report.
func TestDoctorRunsTheAgent(t *testing.T) {
	answer := filepath.Join(t.TempDir(), "answer.jsonl")
	require.NoError(t, os.WriteFile(answer, []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,`+
		`"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"codex-acp","title":"Codex","version":"0.16.0"},"authMethods":[]}}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s-1"}}`+"\n"), 0o644))
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"not found", []string{"--", "acp-proxy-no-such-agent"}, 127, nil, "acp-proxy doctor: acp-proxy-no-such-agent: command not found\n"},
		{"no answer", []string{"--timeout", "100ms", "--", fakeAgent(t)}, 1, nil, "did not answer initialize within 100ms (--timeout to wait longer)\n"},
		{"answers", []string{"--terminal-output", "--", fakeAgent(t), "--emit", answer}, 0, []string{
			`Agent:      codex-acp 0.16.0 ("Codex")`,
			"  --terminal-output (given)\n",
			"  Zed (Zed-like):                                --shell-to-patch --terminal-output\n",
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"doctor"}, c.args...), strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, c.code, code, "stderr: %s", stderr.String())
			for _, want := range c.stdout {
				assert.Contains(t, stdout.String(), want)
			}
			assert.True(t, strings.HasSuffix(stderr.String(), c.stderr), "stderr: %q", stderr.String())
			assert.LessOrEqual(t, strings.Count(stderr.String(), "\n"), 1, "stderr: %q", stderr.String())
		})
	}
}

// A command that visibly lacks its ACP argument is said at once, without
// starting it (it would wait as an interactive CLI until the timeout).
func TestDoctorSaysAMissingACPArgumentAtOnce(t *testing.T) {
	bin := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	for _, name := range []string{"opencode", "qwen"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\ntouch '"+started+"'\nexec sleep 60\n"), 0o755))
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for argv, says := range map[string]string{
		"opencode": "acp-proxy doctor: opencode is an ACP agent only with acp: acp-proxy doctor -- opencode acp\n",
		"qwen -y":  "acp-proxy doctor: qwen is an ACP agent only with --acp: acp-proxy doctor -- qwen -y --acp\n",
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"doctor", "--"}, strings.Fields(argv)...), strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 1, code, argv)
		assert.Equal(t, says, stderr.String(), argv)
		assert.NoFileExists(t, started, "%s was started", argv)
	}
}

// go run builds into a go-build directory it deletes afterwards: configs
// naming that binary would break as soon as doctor ends. Since Go 1.24 a
// second go run runs the binary it keeps in the build cache instead.
func TestDoctorKnowsGoRunsTemporaryBuild(t *testing.T) {
	cached := "/root/.cache/go-build/16/164d5250052669e8895380b292130d265a8eb45b8d6ea469af0ac58ec4bc6216-d/acp-proxy"
	assert.Contains(t, temporaryBuild(cached), "go run's build in Go's build cache ("+cached+")")
	assert.Contains(t, temporaryBuild(cached), "GOBIN=~/.local/bin go install ./cmd/acp-proxy")
	assert.Contains(t, temporaryBuild(`C:\Users\me\AppData\Local\go-build\0a\0a4d5250052669e8895380b292130d265a8eb45b8d6ea469af0ac58ec4bc6216-d\acp-proxy.exe`), "build cache")
	assert.Empty(t, temporaryBuild("/root/.cache/go-build/16/164d-d/acp-proxy"), "not a hash")
	assert.Empty(t, temporaryBuild("/root/.cache/go-build/17/164d5250052669e8895380b292130d265a8eb45b8d6ea469af0ac58ec4bc6216-d/acp-proxy"), "not under its prefix")
	assert.Contains(t, temporaryBuild("/tmp/go-build3315874939/b001/exe/acp-proxy"), "GOBIN=~/.local/bin go install ./cmd/acp-proxy")
	assert.Contains(t, temporaryBuild(`C:\Users\me\AppData\Local\Temp\go-build1\b001\exe\acp-proxy.exe`), "go run's temporary build")
	assert.Empty(t, temporaryBuild("/home/you/.local/bin/acp-proxy"))
	assert.Empty(t, temporaryBuild("/home/you/src/go-build-tools/acp-proxy"))
}

// What go run really runs, the first time and the second (from the build
// cache since Go 1.24), is known as go run's.
func TestDoctorKnowsWhatGoRunRuns(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/self\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(
		"package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tp, _ := os.Executable()\n\tfmt.Print(p)\n}\n"), 0o644))
	for _, run := range []string{"first", "second"} {
		cmd := exec.Command(goCmd, "run", ".")
		cmd.Dir = dir
		out, err := cmd.Output()
		require.NoError(t, err)
		assert.NotEmpty(t, temporaryBuild(string(out)), "%s go run: %s", run, out)
	}
}
