package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/proxy"
)

var embedReads = flag.Bool("embed-reads", false, "add to each committed trace what --shell-to-patch and --expand-persisted-output read from the session's files, staged from <trace>.saved at the recorded paths")

// TestEmbedReads converts the committed traces, recorded before traces
// carried what the filters read, into self-contained ones (once; skipped
// without -embed-reads).
func TestEmbedReads(t *testing.T) {
	if !*embedReads {
		t.Skip("-embed-reads rewrites testdata/traces")
	}
	lockStaging(t)
	for _, name := range committedTraces(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(tracesDir, name+".jsonl")
			trace, err := os.ReadFile(path)
			require.NoError(t, err)
			t.Setenv("CLAUDE_CONFIG_DIR", stageSessionFiles(t, name, trace))
			cfg := filterConfig{ShellToPatch: true, ExpandPersistedOutput: true}
			var out bytes.Buffer
			require.NoError(t, proxy.EmbedReads(context.Background(), cfg.Chain(capabilities.New()), bytes.NewReader(trace), &out))
			require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
		})
	}
}
