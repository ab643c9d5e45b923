//go:build !linux

package changes

import (
	"context"
	"io/fs"
	"path/filepath"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// walkFiles calls fn with every file under root but the skipped folders
// (its folder's path, "" or ending in '/', and its name), in walkOrder (filepath.WalkDir's), until fn returns false; note says why
// it stopped early when the scan was stopped (ctx). It never follows a
// symbolic link; an unreadable folder is not entered.
func walkFiles(ctx context.Context, root string, d *beneath.Dir, fn func(folder, name string, v version) bool) (note string) {
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			note = "the scan was stopped: " + context.Cause(ctx).Error()
			return filepath.SkipAll
		}
		if err != nil || p == root {
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if skipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if fi, err := e.Info(); err == nil && !fn(rel[:len(rel)-len(e.Name())], e.Name(), versionOf(d, rel, fi)) { // an Lstat
			return filepath.SkipAll
		}
		return nil
	})
	return note
}
