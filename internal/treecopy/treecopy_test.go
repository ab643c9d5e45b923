package treecopy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFilesKeepsRelativePaths(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "a", "tool-results"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a", "tool-results", "x.txt"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a", "other.txt"), []byte("o"), 0o644))

	keep := func(p string) bool { return filepath.Base(filepath.Dir(p)) == "tool-results" }
	require.NoError(t, Files(src, filepath.Join(src, "a"), dst, keep))
	b, err := os.ReadFile(filepath.Join(dst, "a", "tool-results", "x.txt"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
	assert.NoFileExists(t, filepath.Join(dst, "a", "other.txt"))

	assert.NoError(t, Files(src, filepath.Join(src, "missing"), dst, nil), "a missing tree copies nothing")
}
