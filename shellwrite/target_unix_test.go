//go:build unix

package shellwrite

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO as target would block a reader forever: it is not a regular file.
func TestCheckTargetFIFO(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err = CheckTarget(Write{Path: path}, root, false, 1024)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v, want a rejection of the FIFO", err)
	}
}
