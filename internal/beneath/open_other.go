//go:build !unix

package beneath

import (
	"os"
	"path/filepath"
)

// sysDir is nothing of its own: without openat and O_NOFOLLOW (Windows),
// os.Root keeps the open below the directory, and a link within it that
// a writer swapped in is followed.
type sysDir struct{ root *os.Root }

func openSys(name string) (sysDir, error) {
	r, err := os.OpenRoot(name)
	return sysDir{r}, err
}

func (s sysDir) close() { s.root.Close() }

func (s sysDir) open(_, rel string) (*os.File, error) { return s.root.Open(filepath.FromSlash(rel)) }
