// Package treecopy copies files between directory trees for tests: the
// outputs the Claude CLI saves are kept next to a trace and put back at the
// paths the trace names when it is replayed.
package treecopy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Files copies every regular file below under for which keep returns true
// (nil keeps all) to the same path relative to from, below to. A missing
// under copies nothing.
func Files(from, under, to string, keep func(path string) bool) error {
	err := filepath.WalkDir(under, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (keep != nil && !keep(p)) {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
