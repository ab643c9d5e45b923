package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The summary speaks the user's language: filters by the flag that turned
// them on, why one changed nothing, what changed on the way to the agent,
// and calls by their command rather than an id.
func TestReplaySummaryNamesFlagsReasonsAndCalls(t *testing.T) {
	code, out, stderr := replayRun(t, "--summary", "--terminal-output", "--deltas", filepath.Join(tracesDir, "codex-0.13-plain-shell-900.jsonl"))
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"1 connection: agent codex-acp 0.13.0, client acpclient, 1.355 s\n",
		"\n--deltas  ",
		"\n--terminal-output  ",
		"\n--terminal-output (saved-output previews)  ",
		"\n    stood aside: no <persisted-output> preview or saved-output note\n",
		"filter (client->agent)",
		"\n    asked the agent for _meta.terminal_output in initialize\n",
		"\nfor i in $(seq 1 900); do echo line $i; done  ",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "call_mock_1")
	assert.NotRegexp(t, `(?m)^\s*persisted-output`, out, "no filter row without its flag")
}

// Two sessions appended to one file are two connections, each with its own
// agent and calls, though both calls are call_mock_1.
func TestReplaySummaryOfTwoAppendedTracesShowsTwoConnections(t *testing.T) {
	var both []byte
	for _, name := range []string{"codex-0.13-plain-shell-5", "codex-0.16-zed-shell-5"} {
		b, err := os.ReadFile(filepath.Join(tracesDir, name+".jsonl"))
		require.NoError(t, err)
		both = append(both, b...)
	}
	path := filepath.Join(t.TempDir(), "both.jsonl")
	require.NoError(t, os.WriteFile(path, both, 0o644))
	code, out, stderr := replayRun(t, "--summary", "--deltas", path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "connection 1 of 2: agent codex-acp 0.13.0")
	assert.Contains(t, out, "\nconnection 2 of 2: agent codex-acp 0.16.0")
	assert.Equal(t, 2, strings.Count(out, "\n[1] for i in $(seq 1 5); do echo line $i; sleep 0.05; done  ")+strings.Count(out, "\n[2] for i in $(seq 1 5); do echo line $i; sleep 0.05; done  "), "the totals list both calls")
	assert.Equal(t, 4, strings.Count(out, "for i in $(seq 1 5); do echo line $i; sleep 0.05; done  "), "and each connection its own")

	code, js, stderr := replayRun(t, "--summary", "--json", "--deltas", path)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 2, strings.Count(js, `"toolCallId": "call_mock_1"`)-2, "the totals list both calls; each connection its own")
	assert.Contains(t, js, `"connection": 2`)
}

// README's "Run it" shows what the command prints.
func TestReadmeRunItOutputIsWhatReplayPrints(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	const cmd = "$ go run ./cmd/acp-proxy replay --summary --terminal-output --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl\n"
	m := regexp.MustCompile("(?s)" + regexp.QuoteMeta(cmd) + "(.*?)```").FindSubmatch(readme)
	require.NotNil(t, m, "README's Run it block")
	code, out, stderr := replayRun(t, "--summary", "--terminal-output", "--deltas", filepath.Join(tracesDir, "codex-0.13-plain-shell-900.jsonl"))
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, string(m[1]), out)
}
