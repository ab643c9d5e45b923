package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	return plain
}

// --record FILE.gz writes a gzip'd trace, one gzip member per run;
// replay and view read it, from the file or from stdin, as the trace it
// holds.
func TestRecordGzipThenReplayAndView(t *testing.T) {
	in := corpus(t)
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl.gz")
	for range 2 { // --record appends
		out, stderr, code := runProxy(t, in, "--record", trace, "--", fakeAgent(t), "--echo")
		require.Equal(t, 0, code, "%s", stderr)
		require.Equal(t, string(in), string(out))
	}
	gz, err := os.ReadFile(trace)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(gz, []byte{0x1f, 0x8b}), "gzip'd")
	plain := gunzip(t, gz)
	require.Equal(t, 2, bytes.Count(plain, []byte(`"connection":`)), "both runs")

	replayed, stderr, code := runProxy(t, nil, "replay", trace)
	require.Equal(t, 0, code, "%s", stderr)
	sameBytes(t, plain, replayed) // with no filters a replay is the recording
	fromStdin, stderr, code := runProxy(t, gz, "replay")
	require.Equal(t, 0, code, "%s", stderr)
	sameBytes(t, plain, fromStdin)

	_, stderr, code = runProxy(t, nil, "view", trace)
	require.Equal(t, 0, code, "%s", stderr)
	assert.FileExists(t, filepath.Join(dir, "trace.html"), "the page is named after the trace, without .jsonl.gz")
}

// A gzip'd trace cut short (a proxy killed before it closed the file)
// replays up to the cut, and the replay says so.
func TestReplayOfACutGzipTraceSaysSo(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(tracesDir, "codex-0.13-plain-shell-900.jsonl"))
	require.NoError(t, err)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err = zw.Write(plain)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	path := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	require.NoError(t, os.WriteFile(path, b.Bytes()[:b.Len()/2], 0o644))

	code, out, stderr := replayRun(t, path)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "cut.jsonl.gz: the gzip'd trace ends early or is damaged (unexpected EOF): read up to there (was the recording proxy killed?)")
	assert.NotEmpty(t, out)
	assert.True(t, strings.HasPrefix(string(plain), out), "the records before the cut, whole")
}

// A proxy killed with SIGKILL (it runs no code), as some editors stop an
// agent, leaves its gzip'd trace whole up to its last flush (a second at
// most before), and the next run appends to it as to any trace.
func TestAProxyKilledMidSessionLeavesAReadableGzipTrace(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"n":%d}}`, i))
	}
	emit := filepath.Join(dir, "agent.jsonl")
	require.NoError(t, os.WriteFile(emit, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	path := filepath.Join(dir, "killed.jsonl.gz")
	s := start(t, "--record", path, "--", fakeAgent(t), "--emit", emit)
	for range lines {
		_, err := s.stdout.ReadString('\n')
		require.NoError(t, err)
	}
	replayed := func() (code int, stdout, stderr string) {
		var o, e bytes.Buffer
		code = run([]string{"replay", path}, nil, &o, &e)
		return code, o.String(), e.String()
	}
	assert.Eventually(t, func() bool {
		code, out, _ := replayed()
		return code == 0 && strings.Count(out, "\n") == 1+len(lines)
	}, 10*time.Second, 20*time.Millisecond, "the records are flushed while the proxy runs")
	require.NoError(t, s.cmd.Process.Kill())
	_ = s.cmd.Wait()

	code, out, stderr := replayed()
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "the file is whole")
	assert.Equal(t, 1+len(lines), strings.Count(out, "\n"), "the connection record and every line")
	assert.Contains(t, out, `"params":{"n":99}`)

	next, stderrText, code := runProxy(t, []byte(lines[0]+"\n"), "--record", path, "--", fakeAgent(t), "--echo")
	require.Equal(t, 0, code, "%s", stderrText)
	require.Equal(t, lines[0]+"\n", string(next))
	code, out, stderr = replayed()
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Equal(t, 2, strings.Count(out, `"connection":`), "the killed run and the next")
	assert.Equal(t, 1+len(lines)+3, strings.Count(out, "\n"), "every line of both")
}
