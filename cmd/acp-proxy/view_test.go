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

// Where `acp-proxy view` writes the page.
func TestViewWritesThePage(t *testing.T) {
	trace, err := os.ReadFile(filepath.Join(tracesDir, "codex-0.13-zed-shell-5.jsonl"))
	require.NoError(t, err)
	for _, c := range []struct {
		name  string
		args  func(dir string) []string
		stdin bool
		file  string // where the page lands ("" : stdout)
	}{
		{"beside the trace", func(dir string) []string { return []string{filepath.Join(dir, "s.jsonl")} }, false, "s.html"},
		{"to -o", func(dir string) []string {
			return []string{"-o", filepath.Join(dir, "p.html"), filepath.Join(dir, "s.jsonl")}
		}, false, "p.html"},
		{"to stdout with -o -", func(dir string) []string { return []string{"-o", "-", filepath.Join(dir, "s.jsonl")} }, false, ""},
		{"from stdin to stdout", func(string) []string { return nil }, true, ""},
		{"from stdin to -o", func(dir string) []string { return []string{"-o", filepath.Join(dir, "p.html"), "-"} }, true, "p.html"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "s.jsonl"), trace, 0o644))
			stdin := strings.NewReader("")
			if c.stdin {
				stdin = strings.NewReader(string(trace))
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"view", "--deltas"}, c.args(dir)...), stdin, &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			page := stdout.Bytes()
			if c.file != "" {
				assert.Empty(t, stdout.String())
				assert.Contains(t, stderr.String(), "wrote "+filepath.Join(dir, c.file))
				page, err = os.ReadFile(filepath.Join(dir, c.file))
				require.NoError(t, err)
			}
			assert.True(t, bytes.HasPrefix(page, []byte("<!DOCTYPE html>")), "%.100s", page)
			assert.Contains(t, string(pageData(t, page)), `"--deltas"`)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				assert.False(t, strings.HasPrefix(e.Name(), "."), "a temporary file was left: %s", e.Name())
			}
		})
	}
}

// A broken trace writes no page, and says which line.
func TestViewOfAMalformedTraceNamesTheLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"t":0.1,"dir":"client->agent","msg":{}}`+"\n"+`{"t":0.2,"dir":`+"\n"), 0o644))
	for _, flags := range [][]string{nil, {"--deltas"}} {
		var stdout, stderr bytes.Buffer
		code := run(append(append([]string{"view"}, flags...), path), strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr.String(), path+": trace line 2: not a JSON object")
		_, err := os.Stat(filepath.Join(dir, "bad.html"))
		assert.True(t, os.IsNotExist(err), "a page was written for a broken trace")
	}
}

func TestViewUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"view", "--help"}, strings.NewReader(""), &stdout, &stderr))
	assert.Contains(t, stdout.String(), "acp-proxy view [filter flags] [-o FILE.html] [TRACE|-]")
	assert.Contains(t, stdout.String(), "--terminal-output")
	stdout.Reset()
	assert.Equal(t, exitUsage, run([]string{"view", "a", "b"}, strings.NewReader(""), &stdout, &stderr))
	assert.Contains(t, stderr.String(), "at most one TRACE")
}
