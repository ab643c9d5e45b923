//go:build unix

package shellwrite

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
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

// Where openat2 is missing (kernels before 5.6, other systems), oldText is opened one component at
// a time with O_NOFOLLOW: a symlink anywhere on the way fails the open.
func TestOpenNoFollowRefusesSymlinks(t *testing.T) {
	fsys := newTargetFS(t)
	fsys.mkdir(t, filepath.Join(fsys.root, "real"))
	fsys.file(t, filepath.Join(fsys.root, "real", "f"), "inside\n")
	fsys.file(t, filepath.Join(fsys.outside, "f"), "secret\n")
	fsys.symlink(t, fsys.outside, filepath.Join(fsys.root, "dir-link"))
	fsys.symlink(t, filepath.Join(fsys.root, "real", "f"), filepath.Join(fsys.root, "file-link"))
	dir, err := unix.Open(fsys.root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dir)
	for rel, ok := range map[string]bool{"real/f": true, "dir-link/f": false, "file-link": false} {
		f, err := openNoFollow(dir, rel, filepath.Join(fsys.root, rel))
		if (err == nil) != ok {
			t.Errorf("openNoFollow(%s): err = %v, want success %v", rel, err, ok)
		}
		if f != nil {
			f.Close()
		}
	}
}
