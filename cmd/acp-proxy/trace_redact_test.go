package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// redactTo runs replay --redact on the trace at path and writes the result
// beside it; it returns the redacted trace's path.
func redactTo(t *testing.T, path string) string {
	t.Helper()
	code, out, stderr := replayRun(t, "--redact", path)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	red := filepath.Join(t.TempDir(), "redacted.jsonl")
	require.NoError(t, os.WriteFile(red, []byte(out), 0o644))
	return red
}

func summaryOf(t *testing.T, args ...string) trace.Report {
	t.Helper()
	code, js, stderr := replayRun(t, append([]string{"--summary", "--json"}, args...)...)
	require.Equal(t, 0, code, stderr)
	var r trace.Report
	require.NoError(t, json.Unmarshal([]byte(js), &r))
	return r
}

// A redacted trace replays as the original does: through the output
// filters, the same messages before and after, each direction's bytes
// within 2%; and view makes its page. A trace recorded through filters
// keeps what its proxy sent.
func TestARedactedTraceReplaysAsTheOriginal(t *testing.T) {
	for _, c := range []struct {
		trace string
		flags []string
	}{
		{filepath.Join(tracesDir, "codex-0.13-plain-shell-900.jsonl"), []string{"--deltas", "--terminal-output"}},
		{filepath.Join(tracesDir, "opencode-1.18-plain-2000.jsonl"), []string{"--deltas"}},
		{filepath.Join(tracesDir, "codex-2.6-plain-polled-40.jsonl"), []string{"--terminal-output"}},
		{filteredRecording(t, "codex-0.13-plain-shell-900", "--deltas", "--terminal-output"), nil},
	} {
		t.Run(filepath.Base(c.trace), func(t *testing.T) {
			red := redactTo(t, c.trace)
			orig, got := summaryOf(t, append(c.flags, c.trace)...), summaryOf(t, append(c.flags, red)...)
			require.Len(t, got.Directions, 2)
			for i, d := range orig.Directions {
				r := got.Directions[i]
				assert.Equal(t, d.Before.Messages, r.Before.Messages, d.Direction)
				assert.Equal(t, d.After.Messages, r.After.Messages, d.Direction)
				assert.InDelta(t, d.Before.Bytes, r.Before.Bytes, float64(d.Before.Bytes)/50, d.Direction)
				assert.InDelta(t, d.After.Bytes, r.After.Bytes, float64(d.After.Bytes)/50, d.Direction)
			}
			assert.Equal(t, orig.AfterAsRecorded, got.AfterAsRecorded)
			viewOK(t, append(c.flags, red)...)
		})
	}
}

// --redact reads a gzip'd trace too, and takes no filter flag: it writes
// the trace as recorded.
func TestReplayRedactReadsGzipAndTakesNoFilterFlags(t *testing.T) {
	path := filepath.Join(tracesDir, "codex-0.13-plain-heredoc.jsonl")
	plain, err := os.ReadFile(path)
	require.NoError(t, err)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(plain)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	var fromGzip, fromPlain, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"replay", "--redact"}, &gz, &fromGzip, &stderr), stderr.String())
	require.Equal(t, 0, run([]string{"replay", "--redact", path}, nil, &fromPlain, &stderr), stderr.String())
	assert.Equal(t, fromPlain.String(), fromGzip.String())
	assert.NotContains(t, fromPlain.String(), "hello", "the heredoc's file is gone")

	code, out, errText := replayRun(t, "--redact", "--deltas", path)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errText, "\n"))
	assert.Contains(t, errText, "acp-proxy replay: --redact writes the trace as recorded, so it takes no --deltas")
}
