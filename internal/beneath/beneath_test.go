package beneath

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tree with a file inside, a secret outside, and links to both.
func linkedTree(t *testing.T) (root string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "real", "f"), []byte("inside\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "f"), []byte("secret\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "dir-link")))
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "f"), filepath.Join(root, "file-link")))
	return root
}

// No symbolic link below the directory is followed, not even one that
// stays inside it; nor is a path that leaves it.
func TestOpenFollowsNoLinkBelowTheDirectory(t *testing.T) {
	root := linkedTree(t)
	d, err := OpenDir(root)
	require.NoError(t, err)
	defer d.Close()
	for rel, ok := range map[string]bool{"real/f": true, "dir-link/f": false, "file-link": false, "../x": false, "real/../../x": false} {
		f, err := d.Open(rel)
		assert.Equal(t, ok, err == nil, "Open(%s): err = %v, want success %v", rel, err, ok)
		if f != nil {
			f.Close()
		}
	}
}

// The session's directory itself may be a link (macOS's /tmp): it is the
// user's, followed once, and the files below it read.
func TestASymlinkedDirectoryIsOpenedWhereItLeads(t *testing.T) {
	root := linkedTree(t)
	link := filepath.Join(t.TempDir(), "project")
	require.NoError(t, os.Symlink(filepath.Join(root, "real"), link))
	resolved, err := Resolve(link)
	require.NoError(t, err)
	want, _ := filepath.EvalSymlinks(filepath.Join(root, "real"))
	assert.Equal(t, want, resolved)
	d, err := OpenDir(link)
	require.NoError(t, err)
	defer d.Close()
	content, _, err := d.ReadFile("f", 100)
	require.NoError(t, err)
	assert.Equal(t, "inside\n", string(content))
}

func TestReadFileSaysWhatItDidNotRead(t *testing.T) {
	root := linkedTree(t)
	d, err := OpenDir(root)
	require.NoError(t, err)
	defer d.Close()
	_, _, err = d.ReadFile("real/f", 3)
	assert.ErrorIs(t, err, ErrTooLarge)
	_, _, err = d.ReadFile("real", 100)
	var nr NotRegularError
	assert.True(t, errors.As(err, &nr), "a directory: %v", err)
	assert.True(t, Text([]byte("héllo\n")))
	assert.False(t, Text([]byte("a\x00b")))
	assert.False(t, Text([]byte("\xff")))
}

// A small file is read into an array of its own size (one byte more, to
// see its end), not into io.ReadAll's 512 bytes: a before-state keeps
// the copies of many small files. A file that grew past its stat is read
// whole, within max.
func TestReadFileReadsIntoAnArrayOfTheFilesSize(t *testing.T) {
	root := linkedTree(t)
	d, err := OpenDir(root)
	require.NoError(t, err)
	defer d.Close()
	content, _, err := d.ReadFile("real/f", 100)
	require.NoError(t, err)
	assert.Equal(t, "inside\n", string(content))
	assert.LessOrEqual(t, cap(content), len(content)+8, "the array is the file's size")
	grown, err := readAll(strings.NewReader("grown past its stat\n"), 3, 100)
	require.NoError(t, err)
	assert.Equal(t, "grown past its stat\n", string(grown))
	_, err = readAll(strings.NewReader("grown past its stat\n"), 3, 10)
	assert.ErrorIs(t, err, ErrTooLarge)
}
