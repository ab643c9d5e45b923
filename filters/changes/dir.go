package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// dirSnap is the before-state of a directory outside git: each file's stat,
// and the text of small text files within the byte budget.
type dirSnap struct {
	root  string // the session's directory, as the session names it: the changes' paths
	real  string // root with its own links resolved: what is scanned
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

// takeDir scans root and copies what fits. A root reached through a link
// (the user's: macOS's /tmp is one) is scanned where it leads.
func takeDir(ctx context.Context, root string, lim Limits) Snapshot {
	resolved, err := beneath.Resolve(root)
	if err != nil {
		return failed{fmt.Sprintf("cannot open %s: %v", root, err)}
	}
	d, err := beneath.OpenDir(resolved)
	if err != nil {
		return failed{fmt.Sprintf("cannot open %s: %v", root, err)}
	}
	defer d.Close()
	racy, start := time.Now().Add(-racyWindow).UnixNano(), takeStart(ctx)
	files, note := scanDir(ctx, resolved, d, lim)
	if files == nil {
		return aside{note} // too big to watch: the session's first update says so, once
	}
	copyBefore(d, files, lim)
	markDuring(files, start)
	return &dirSnap{root: root, real: resolved, lim: lim, files: files, note: note, racy: racy}
}

// maxPathBytes bounds the bytes of the paths a scan outside git holds,
// beside lim.MaxFiles: a before-state keeps each path twice over while a
// report's scan runs, and with the stats and the copies (MaxCopyBytes) the
// two must stay within 64 MB whatever the tree.
const maxPathBytes = 8 << 20

// scanDir stats every file under root but the skipped folders and what git
// would ignore there (walkDir, then dropIgnored of every path). A tree
// past lim.MaxFiles files, or maxPathBytes of their paths, is too big to
// watch: the map is nil and the note says why.
func scanDir(ctx context.Context, root string, d *beneath.Dir, lim Limits) (map[string]version, string) {
	files, note, sawIgnore := walkDir(ctx, root, d, lim)
	if files == nil {
		return nil, tooBig(root, lim)
	}
	if why := dropIgnored(ctx, root, files, slices.Sorted(maps.Keys(files)), sawIgnore); why != "" {
		return map[string]version{}, why
	}
	return files, note
}

// walkDir stats every file under root but the skipped folders; sawIgnore
// says whether a .gitignore is among them. Past the bounds the map is nil.
// It never follows a symlink.
func walkDir(ctx context.Context, root string, d *beneath.Dir, lim Limits) (files map[string]version, note string, sawIgnore bool) {
	files = map[string]version{}
	pathBytes := 0
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
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
		if e.IsDir() {
			if skipDir(e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if len(files) >= lim.MaxFiles || pathBytes+len(rel) > maxPathBytes {
			files = nil
			return filepath.SkipAll
		}
		sawIgnore = sawIgnore || e.Name() == ".gitignore"
		if fi, err := e.Info(); err == nil { // an Lstat: the walk follows no link
			files[rel] = versionOf(d, rel, fi)
			pathBytes += len(rel)
		}
		return nil
	})
	return files, note, sawIgnore
}

// dropIgnored deletes from files those of paths (sorted) that git would
// ignore (the .gitignore files, and the user's excludes file,
// core.excludesFile: git's check-ignore says). When that cannot be read,
// it says why, and no file may be looked at.
func dropIgnored(ctx context.Context, root string, files map[string]version, paths []string, sawIgnore bool) string {
	ignored, err := checkIgnore(ctx, root, paths)
	switch {
	case errors.Is(err, exec.ErrNotFound) && !sawIgnore:
		// No git: no .gitignore and no excludes file of git's to honour.
	case err != nil:
		return "what git ignores cannot be read (" + err.Error() + "): no file is looked at"
	}
	for _, p := range ignored {
		delete(files, p)
	}
	return ""
}

// tooBig says that the tree at root is too big to watch.
func tooBig(root string, lim Limits) string {
	return fmt.Sprintf("the session's directory (%s) holds more than %d files (or %s of their names) outside git, too many to watch: --show-changes stands aside for this session",
		root, lim.MaxFiles, sizeWords(maxPathBytes))
}

// copyBefore reads the small regular files of files, in path order, while
// the byte budget lasts; a binary file keeps only its hash.
func copyBefore(d *beneath.Dir, files map[string]version, lim Limits) {
	paths := mapsKeys(files)
	sort.Strings(paths)
	budget := lim.MaxCopyBytes
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
		read := readVersion(d, p, lim.MaxFileBytes)
		if !read.read || !read.sameStat(v) {
			continue // changed or unreadable as the scan looked: stat alone tells
		}
		budget -= read.size
		if !read.text {
			read.content = nil
		}
		read.content = fitted(read.content)
		files[p] = read
	}
}

// fitted is content in an array of its own size: a read buffer starts at
// 512 bytes, and a before-state outside git keeps a copy of every small
// file (100,000 files of 80 bytes held 51 MB of buffers for 8 MB of text).
func fitted(content []byte) []byte {
	if cap(content)-len(content) <= len(content)/8 {
		return content
	}
	return bytes.Clone(content)
}

// notCopied says why a file's text before the call was not copied.
func notCopied(v version, lim Limits) string {
	if v.size > lim.MaxFileBytes {
		return fmt.Sprintf("larger than %s (%d bytes)", sizeWords(lim.MaxFileBytes), v.size)
	}
	return fmt.Sprintf("its text before the command was not copied (past the %s the proxy copies per command)", sizeWords(lim.MaxCopyBytes))
}

// Changes scans the directory again and reports every file whose stat or
// text differs, reading only those shown. Only the paths whose stat
// changed are asked of git's ignore rules: the others were asked when the
// before-state was taken.
func (s *dirSnap) Changes(ctx context.Context) Report {
	d, err := beneath.OpenDir(s.real)
	if err != nil {
		return Report{Files: []Change{}, Note: fmt.Sprintf("cannot open %s: %v", s.root, err)}
	}
	defer d.Close()
	now, note, sawIgnore := walkDir(ctx, s.real, d, s.lim)
	if now == nil {
		return Report{Files: []Change{}, Note: "not looked at: " + tooBig(s.root, s.lim)}
	}
	if note == "" {
		note = s.note
	}
	var present, gone []string // the paths that may have changed: there now, and gone
	for p, after := range now {
		if !s.unchanged(s.files[p], after) {
			present = append(present, p)
		}
	}
	for p, before := range s.files {
		if _, ok := now[p]; !ok && !s.unchanged(before, version{}) {
			gone = append(gone, p)
		}
	}
	slices.Sort(present)
	if why := dropIgnored(ctx, s.real, now, present, sawIgnore); why != "" {
		return Report{Files: []Change{}, Note: why}
	}
	var cands []candidate
	for _, p := range slices.Sorted(slices.Values(append(present, gone...))) {
		if before, after := s.files[p], now[p]; differs(d, p, before, after, s.lim.MaxFileBytes) {
			cands = append(cands, candidate{rel: p, before: before})
		}
	}
	shown, more := shownOf(cands, s.lim)
	cs, deleted := changesOf(s.root, d, shown, nil, s.lim)
	return finish(cs, deleted, more, note)
}

// unchanged reports whether a path's stat tells it did not change from
// before to after: the same stat, not written within racyWindow before the
// state was taken (a write of the same size may follow within the
// timestamps' grain), nor while it was taken.
func (s *dirSnap) unchanged(before, after version) bool {
	return before.sameStat(after) && !(before.read && before.mtime >= s.racy) && !before.during
}

func (s *dirSnap) Close() {}

func mapsKeys(m map[string]version) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
