package changes

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// dirSnap is the before-state of a directory outside git: each file's stat,
// and the text of small text files within the byte budget.
type dirSnap struct {
	root  string
	lim   Limits
	files map[string]version // by path relative to root, slash-separated
	note  string
	// racy: a file modified since this time may change again with the same
	// size and mtime (timestamps are coarse), so only its text tells.
	racy int64
}

// racyWindow is how long before a scan a file's mtime leaves its stat
// unable to tell a later write of the same size.
const racyWindow = time.Second

// takeDir scans root and copies what fits.
func takeDir(ctx context.Context, root string, lim Limits) Snapshot {
	r, err := os.OpenRoot(root)
	if err != nil {
		return failed{fmt.Sprintf("cannot open %s: %v", root, err)}
	}
	defer r.Close()
	racy := time.Now().Add(-racyWindow).UnixNano()
	files, note := scanDir(ctx, root, r, lim)
	copyBefore(r, files, lim)
	return &dirSnap{root: root, lim: lim, files: files, note: note, racy: racy}
}

// scanDir stats every file under root but the skipped folders and what a
// .gitignore hides, up to lim.MaxFiles. It never follows a symlink.
func scanDir(ctx context.Context, root string, r *os.Root, lim Limits) (map[string]version, string) {
	files := map[string]version{}
	var note string
	sawIgnore := false
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			note = "the scan was stopped: " + context.Cause(ctx).Error()
			return filepath.SkipAll
		}
		if err != nil || p == root {
			return nil // an unreadable folder is not entered
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if len(files) >= lim.MaxFiles {
			note = fmt.Sprintf("the directory holds more than %d files: the files after them are not looked at", lim.MaxFiles)
			return filepath.SkipAll
		}
		sawIgnore = sawIgnore || d.Name() == ".gitignore"
		if fi, err := d.Info(); err == nil { // an Lstat: the walk follows no link
			files[rel] = versionOf(r, rel, fi)
		}
		return nil
	})
	if sawIgnore {
		paths := mapsKeys(files)
		sort.Strings(paths)
		ignored, err := checkIgnore(ctx, root, paths)
		if err != nil {
			return map[string]version{}, "the .gitignore files cannot be read (" + err.Error() + "): no file is looked at"
		}
		for _, p := range ignored {
			delete(files, p)
		}
	}
	return files, note
}

// copyBefore reads the small regular files of files, in path order, while
// the byte budget lasts; a binary file keeps only its hash. Each folder is
// opened once, as a root of its own, so a file costs one open.
func copyBefore(r *os.Root, files map[string]version, lim Limits) {
	paths := mapsKeys(files)
	sort.Strings(paths)
	budget := lim.MaxCopyBytes
	var folder *os.Root
	folderName := "\x00"
	defer func() {
		if folder != nil {
			folder.Close()
		}
	}()
	for _, p := range paths {
		v := files[p]
		if v.kind != regular {
			continue
		}
		if v.size > lim.MaxFileBytes || v.size > budget {
			v.why = notCopied(v, lim)
			files[p] = v
			continue
		}
		dir, name := path.Split(p)
		if dir != folderName {
			if folder != nil {
				folder.Close()
			}
			folder, folderName = openFolder(r, dir), dir
		}
		if folder == nil {
			continue
		}
		read := readVersion(folder, name, lim.MaxFileBytes)
		if !read.read || !read.sameStat(v) {
			continue // changed or unreadable as the scan looked: stat alone tells
		}
		budget -= read.size
		if !read.text {
			read.content = nil
		}
		files[p] = read
	}
}

// openFolder opens dir (slash-separated, ending in "/", or "") under r as
// a root of its own; nil when it cannot.
func openFolder(r *os.Root, dir string) *os.Root {
	if dir == "" {
		dir = "."
	}
	f, err := r.OpenRoot(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return nil
	}
	return f
}

// notCopied says why a file's text before the call was not copied.
func notCopied(v version, lim Limits) string {
	if v.size > lim.MaxFileBytes {
		return fmt.Sprintf("larger than %s (%d bytes)", sizeWords(lim.MaxFileBytes), v.size)
	}
	return fmt.Sprintf("its text before the command was not copied (past the %s the proxy copies per command)", sizeWords(lim.MaxCopyBytes))
}

// Changes scans the directory again and reports every file whose stat or
// text differs.
func (s *dirSnap) Changes(ctx context.Context) Report {
	r, err := os.OpenRoot(s.root)
	if err != nil {
		return Report{Files: []Change{}, Note: fmt.Sprintf("cannot open %s: %v", s.root, err)}
	}
	defer r.Close()
	now, note := scanDir(ctx, s.root, r, s.lim)
	if note == "" {
		note = s.note
	}
	var cs []Change
	deleted := map[string]string{}
	for _, p := range unionKeys(s.files, now) {
		before, after := s.files[p], now[p]
		if before.sameStat(after) && !(before.read && before.mtime >= s.racy) {
			continue
		}
		if after.kind == regular {
			after = readVersion(r, p, s.lim.MaxFileBytes)
		}
		if c, ok := compare(filepath.Join(s.root, filepath.FromSlash(p)), before, after); ok {
			cs = append(cs, c)
			deleted[c.Path] = hashHex(before)
		}
	}
	return finish(cs, deleted, s.lim, note)
}

func (s *dirSnap) Close() {}

func mapsKeys(m map[string]version) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// unionKeys are the keys of a and b, sorted.
func unionKeys(a, b map[string]version) []string {
	keys := mapsKeys(a)
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
