package main

import (
	"bytes"
	"os"
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
		`"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"codex-acp","title":"Codex","version":"0.16.0"},"authMethods":[]}}`+"\n"), 0o644))
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

// go run builds into a go-build directory it deletes afterwards: configs
// naming that binary would break as soon as doctor ends.
func TestDoctorKnowsGoRunsTemporaryBuild(t *testing.T) {
	assert.Contains(t, temporaryBuild("/tmp/go-build3315874939/b001/exe/acp-proxy"), "GOBIN=~/.local/bin go install ./cmd/acp-proxy")
	assert.Contains(t, temporaryBuild(`C:\Users\me\AppData\Local\Temp\go-build1\b001\exe\acp-proxy.exe`), "go run's temporary build")
	assert.Empty(t, temporaryBuild("/home/you/.local/bin/acp-proxy"))
	assert.Empty(t, temporaryBuild("/home/you/src/go-build-tools/acp-proxy"))
}
