package shellwrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// targetFS is a directory tree for CheckTarget: root is the session root and outside a directory
// beside it. Both are symlink-free.
type targetFS struct{ root, outside string }

func newTargetFS(t *testing.T) targetFS {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	fsys := targetFS{root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	fsys.mkdir(t, fsys.root)
	fsys.mkdir(t, fsys.outside)
	return fsys
}

func (targetFS) mkdir(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(path, 0o755))
}

func (targetFS) file(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func (targetFS) symlink(t *testing.T, target, link string) {
	t.Helper()
	require.NoError(t, os.Symlink(target, link))
}

func TestCheckTarget(t *testing.T) {
	const limit = 16
	cases := []struct {
		name string
		// setup builds the tree and returns the target path and the root to check against.
		setup        func(t *testing.T, fs targetFS) (path, root string)
		allowOutside bool
		old          string // existing content, if exists
		exists       bool
		err          string // part of the error; "" accepts
	}{
		{name: "new file", setup: func(t *testing.T, fs targetFS) (string, string) {
			return filepath.Join(fs.root, "new.txt"), fs.root
		}},
		{name: "new file in a subdirectory", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.mkdir(t, filepath.Join(fs.root, "sub"))
			return filepath.Join(fs.root, "sub", "new.txt"), fs.root
		}},
		{name: "existing file: its content", exists: true, old: "old text\n", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "f.txt"), "old text\n")
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "existing empty file", exists: true, old: "", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "f.txt"), "")
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "file of exactly maxBytes", exists: true, old: strings.Repeat("x", limit), setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "f.txt"), strings.Repeat("x", limit))
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "file over maxBytes", err: "larger than 16 bytes", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "f.txt"), strings.Repeat("x", limit+1))
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "non-UTF-8 file", err: "not UTF-8 text", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "f.bin"), "caf\xe9\n")
			return filepath.Join(fs.root, "f.bin"), fs.root
		}},
		{name: "file with NUL bytes", err: "not UTF-8 text", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "f.bin"), "a\x00b")
			return filepath.Join(fs.root, "f.bin"), fs.root
		}},
		{name: "missing parent directory", err: "parent directory", setup: func(t *testing.T, fs targetFS) (string, string) {
			return filepath.Join(fs.root, "missing", "f.txt"), fs.root
		}},
		{name: "parent is a file", err: "is not a directory", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "plain"), "")
			return filepath.Join(fs.root, "plain", "f.txt"), fs.root
		}},
		{name: "target is a directory", err: "is a directory", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.mkdir(t, filepath.Join(fs.root, "dir"))
			return filepath.Join(fs.root, "dir"), fs.root
		}},
		{name: "target is a symlink to a directory", err: "is a directory", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.mkdir(t, filepath.Join(fs.root, "dir"))
			fs.symlink(t, "dir", filepath.Join(fs.root, "link"))
			return filepath.Join(fs.root, "link"), fs.root
		}},
		{name: "target is root", err: "is a directory", setup: func(t *testing.T, fs targetFS) (string, string) {
			return fs.root, fs.root
		}},
		{name: "outside root", err: "is outside", setup: func(t *testing.T, fs targetFS) (string, string) {
			return filepath.Join(fs.outside, "f.txt"), fs.root
		}},
		{name: "outside root, allowed", allowOutside: true, setup: func(t *testing.T, fs targetFS) (string, string) {
			return filepath.Join(fs.outside, "f.txt"), fs.root
		}},
		{name: "symlinked directory escaping root", err: "is outside", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.symlink(t, fs.outside, filepath.Join(fs.root, "escape"))
			return filepath.Join(fs.root, "escape", "f.txt"), fs.root
		}},
		{name: "symlinked file escaping root", err: "is outside", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.outside, "secret"), "secret\n")
			fs.symlink(t, filepath.Join(fs.outside, "secret"), filepath.Join(fs.root, "f.txt"))
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "symlinked file escaping root, allowed", allowOutside: true, exists: true, old: "secret\n", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.outside, "secret"), "secret\n")
			fs.symlink(t, filepath.Join(fs.outside, "secret"), filepath.Join(fs.root, "f.txt"))
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "symlinked file inside root", exists: true, old: "real\n", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.file(t, filepath.Join(fs.root, "real.txt"), "real\n")
			fs.symlink(t, "real.txt", filepath.Join(fs.root, "f.txt"))
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "dangling symlink: the shell would create its target", err: "symlink", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.symlink(t, filepath.Join(fs.outside, "created"), filepath.Join(fs.root, "f.txt"))
			return filepath.Join(fs.root, "f.txt"), fs.root
		}},
		{name: "root is a symlink, path through it", exists: true, old: "x", setup: func(t *testing.T, fs targetFS) (string, string) {
			link := filepath.Join(fs.outside, "root-link")
			fs.symlink(t, fs.root, link)
			fs.file(t, filepath.Join(fs.root, "f.txt"), "x")
			return filepath.Join(link, "f.txt"), link
		}},
		{name: "root is a symlink, real path", setup: func(t *testing.T, fs targetFS) (string, string) {
			link := filepath.Join(fs.outside, "root-link")
			fs.symlink(t, fs.root, link)
			return filepath.Join(fs.root, "f.txt"), link
		}},
		{name: "path through a symlink to root", setup: func(t *testing.T, fs targetFS) (string, string) {
			link := filepath.Join(fs.outside, "root-link")
			fs.symlink(t, fs.root, link)
			return filepath.Join(link, "new.txt"), fs.root
		}},
		{name: "sibling with root as prefix", err: "is outside", setup: func(t *testing.T, fs targetFS) (string, string) {
			fs.mkdir(t, fs.root+"2")
			return filepath.Join(fs.root+"2", "f.txt"), fs.root
		}},
		{name: "missing root", err: "root", setup: func(t *testing.T, fs targetFS) (string, string) {
			return filepath.Join(fs.root, "f.txt"), filepath.Join(fs.outside, "missing")
		}},
		{name: "relative path", err: "not absolute and clean", setup: func(t *testing.T, fs targetFS) (string, string) {
			return "f.txt", fs.root
		}},
		{name: "unclean path", err: "not absolute and clean", setup: func(t *testing.T, fs targetFS) (string, string) {
			return fs.root + "/./f.txt", fs.root
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, root := tc.setup(t, newTargetFS(t))
			got, err := CheckTarget(Write{Path: path, Content: []byte("new")}, root, tc.allowOutside, limit)
			old, exists := got.Old, got.Exists
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.Nil(t, old, "error, yet old=%q exists=%v", old, exists)
				require.False(t, exists, "error, yet old=%q exists=%v", old, exists)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.exists, exists, "old=%q (nil: %v) exists=%v, want %q exists=%v", old, old == nil, exists, tc.old, tc.exists)
			require.Equal(t, tc.old, string(old), "old=%q (nil: %v) exists=%v, want %q exists=%v", old, old == nil, exists, tc.old, tc.exists)
			if exists {
				require.NotNil(t, old, "the old text of a file that exists")
			} else {
				require.Nil(t, old, "the old text of a file that does not exist")
			}
		})
	}
}

func TestCheckTargetNegativeLimit(t *testing.T) {
	root := t.TempDir()
	_, err := CheckTarget(Write{Path: filepath.Join(root, "f")}, root, false, -1)
	require.Error(t, err, "accepted a negative size limit")
}
