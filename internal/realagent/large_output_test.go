package realagent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// largeLines is the line count of the big-output command (docs/agents.md,
// "Measured: a 35,001-line command").
const largeLines = 35001

// TestCodex013LargeOutputPlain runs a 35,001-line command through codex-acp
// 0.13 with a plain client: the O(n²) snapshot case the proxy exists for.
// It logs what the client received and how long it took.
func TestCodex013LargeOutputPlain(t *testing.T) {
	if testing.Short() {
		t.Skip("large output takes 10–20 s; skipped with -short")
	}
	if raceEnabled {
		t.Skip("large output takes minutes under -race and adds no concurrency the smoke tests lack")
	}
	script := fmt.Sprintf("for i in $(seq 1 %d); do echo line $i; done", largeLines)
	model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{script}})
	// The shell tool: unified exec sometimes loses lines itself under load.
	agent := realagent.Codex(t, "0.13", realagent.CodexOptions{ModelBaseURL: model.BaseURL(), UnifiedExec: false})
	opts := clientOptions(agent, clients[0])
	opts.Timeout = 10 * time.Minute
	opts.MaxRetainedBytes = 16 << 20 // the stream is ~0.5 GB of snapshots
	start := time.Now()
	c := acpclient.Run(t, opts, "print many lines")
	elapsed := time.Since(start)

	st := c.Stats()
	calls := c.ToolCalls()
	require.Len(t, calls, 1, "got %d tool calls, want 1\n%s", len(calls), c.Report())
	last, err := acpclient.DecodeToolUpdate(calls[0].Last)
	require.NoError(t, err)
	out := decodeCodexRawOutput(t, last)
	t.Logf("codex 0.13 shell, plain client, %d lines: %v; %d messages, %d tool updates, %d bytes received, largest line %d bytes",
		largeLines, elapsed.Round(time.Millisecond), st.Messages, calls[0].Count, st.Bytes, st.LargestLine)

	if assert.Equal(t, "completed", last.Status, "final status/exit = %q/%d, want completed/0", last.Status, out.ExitCode) {
		assert.Equal(t, 0, out.ExitCode, "final status/exit = %q/%d, want completed/0", last.Status, out.ExitCode)
	}
	n := strings.Count(out.Stdout, "\n")
	assert.Equal(t, largeLines, n, "rawOutput.stdout has %d lines, want %d", n, largeLines)
	// Snapshots grow with the output: far more bytes than the output itself.
	assert.GreaterOrEqual(t, st.Bytes, 100*int64(len(out.Stdout)), "received %d bytes for %d bytes of output; expected the O(n²) snapshot stream", st.Bytes, len(out.Stdout))
}
