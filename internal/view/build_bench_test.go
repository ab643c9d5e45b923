package view

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkBuildRecorded is the analysis alone: the page's data of the
// committed 900-snapshot trace without filters (no replay), in one process.
//
//	go test ./internal/view -run '^$' -bench BenchmarkBuildRecorded -benchtime 20x
func BenchmarkBuildRecorded(b *testing.B) {
	trace, err := os.ReadFile("../../testdata/traces/codex-0.13-plain-shell-900.jsonl")
	require.NoError(b, err)
	b.SetBytes(int64(len(trace)))
	for range b.N {
		_, err := Build(context.Background(), bytes.NewReader(trace), Options{Name: "trace.jsonl"})
		require.NoError(b, err)
	}
}
