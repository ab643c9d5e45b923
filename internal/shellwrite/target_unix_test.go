//go:build unix

package shellwrite

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO as target would block a reader forever: it is not a regular file.
func TestCheckTargetFIFO(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	path := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err = CheckTarget(Write{Path: path}, root, false, 1024)
	require.ErrorContains(t, err, "not a regular file")
}

// A target with another link is also another file, maybe outside the project.
func TestCheckTargetRefusesHardLinks(t *testing.T) {
	fsys := newTargetFS(t)
	inside := filepath.Join(fsys.root, "node_modules-file")
	fsys.file(t, filepath.Join(fsys.outside, "store-file"), "shared\n")
	if err := os.Link(filepath.Join(fsys.outside, "store-file"), inside); err != nil {
		t.Skipf("link: %v", err)
	}
	_, err := CheckTarget(Write{Path: inside}, fsys.root, false, 1024)
	require.ErrorContains(t, err, "hard links")
}

// A target the shell cannot open for writing makes it write nothing: refused when oldText is
// read. The immutable flag (chattr +i) stops root too; the mode bits stop other users.
func TestCheckTargetRefusesWritesThatCannotHappen(t *testing.T) {
	fsys := newTargetFS(t)
	readOnly := filepath.Join(fsys.root, "read-only")
	fsys.file(t, readOnly, "old\n")
	require.NoError(t, os.Chmod(readOnly, 0o444))
	cases := map[string]string{}
	if os.Geteuid() != 0 {
		cases[readOnly] = "not writable"
		lockedDir := filepath.Join(fsys.root, "locked")
		fsys.mkdir(t, lockedDir)
		require.NoError(t, os.Chmod(lockedDir, 0o555))
		cases[filepath.Join(lockedDir, "new")] = "cannot create"
	}
	immutable := filepath.Join(fsys.root, "immutable")
	fsys.file(t, immutable, "old\n")
	immutableDir := filepath.Join(fsys.root, "immutable-dir")
	fsys.mkdir(t, immutableDir)
	if chattr(t, "+i", immutable) && chattr(t, "+i", immutableDir) {
		cases[immutable] = "not writable"
		cases[filepath.Join(immutableDir, "new")] = "cannot create"
	}
	if len(cases) == 0 {
		t.Skip("running as root without chattr: no target here is unwritable")
	}
	for path, want := range cases {
		_, err := CheckTarget(Write{Path: path}, fsys.root, false, 1024)
		assert.ErrorContains(t, err, want, "%s: err = %v, want %q", path, err, want)
	}
}

// chattr sets a file attribute, undone when the test ends; false where it cannot.
func chattr(t *testing.T, flag, path string) bool {
	t.Helper()
	if err := exec.Command("chattr", flag, path).Run(); err != nil {
		t.Logf("chattr %s %s: %v", flag, path, err)
		return false
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-"+flag[1:], path).Run() })
	return true
}
