package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// dirSnap is the before-state of a directory outside git: each file's stat,
// and the text of small text files within the byte budget.
type dirSnap struct {
	root  string // the session's directory, as the session names it: the changes' paths
	real  string // root with its own links resolved: what is scanned
	lim   Limits
	files []dirFile // in walkOrder
	note  string
	// racy: a file modified since this time may change again with the same
	// size and mtime (timestamps are coarse), so only its text tells.
	racy int64
}

// dirFile is a file of a scan outside git: its path relative to the
// scanned directory (slash-separated) and its version.
type dirFile struct {
	rel string
	v   version
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
	for i := range files {
		files[i].v.markDuring(start)
	}
	return &dirSnap{root: root, real: resolved, lim: lim, files: files, note: note, racy: racy}
}

// maxPathBytes bounds the bytes of the paths a scan outside git holds,
// beside lim.MaxFiles: with the stats and the copies (MaxCopyBytes) a
// before-state and the report made from it must stay within 64 MB
// whatever the tree.
const maxPathBytes = 8 << 20

// scanDir stats every file under root but the skipped folders and what git
// would ignore there (walkFiles, then what git ignores dropped). A tree past
// lim.MaxFiles files, or maxPathBytes of their paths, is too big to watch:
// the list is nil and the note says why.
func scanDir(ctx context.Context, root string, d *beneath.Dir, lim Limits) ([]dirFile, string) {
	files := []dirFile{}
	b := newBound(lim)
	sawIgnore := false
	note := walkFiles(ctx, root, d, func(folder, name string, v version) bool {
		if !b.fits(len(folder) + len(name)) {
			return false
		}
		sawIgnore = sawIgnore || name == ".gitignore"
		files = append(files, dirFile{folder + name, v})
		return true
	})
	if b.past {
		return nil, tooBig(root, lim)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.rel
	}
	ignored, why := ignoredOf(ctx, root, paths, sawIgnore)
	if why != "" {
		return []dirFile{}, why
	}
	if len(ignored) > 0 {
		files = slices.DeleteFunc(files, func(f dirFile) bool { return ignored[f.rel] })
	}
	return slices.Clip(files), note
}

// bound counts a scan's files and the bytes of their paths against the
// limits of what is watched.
type bound struct {
	files, pathBytes, maxFiles int
	past                       bool // the tree is too big to watch
}

func newBound(lim Limits) *bound { return &bound{maxFiles: lim.MaxFiles} }

// fits counts a file whose path is pathLen bytes long, and reports whether
// the tree is still within the bounds.
func (b *bound) fits(pathLen int) bool {
	if b.files >= b.maxFiles || b.pathBytes+pathLen > maxPathBytes {
		b.past = true
		return false
	}
	b.files++
	b.pathBytes += pathLen
	return true
}

// ignoredOf is the set of paths that git would ignore (the .gitignore
// files, and the user's excludes file, core.excludesFile: git's
// check-ignore says). When that cannot be read, why says so, and no file
// may be looked at.
func ignoredOf(ctx context.Context, root string, paths []string, sawIgnore bool) (ignored map[string]bool, why string) {
	list, err := checkIgnore(ctx, root, paths)
	return ignoredSet(list, err, sawIgnore)
}

// ignoredSet is the set of the paths git's check-ignore listed, or why they
// cannot be known when it failed (err).
func ignoredSet(list []string, err error, sawIgnore bool) (ignored map[string]bool, why string) {
	switch {
	case errors.Is(err, exec.ErrNotFound) && !sawIgnore:
		// No git: no .gitignore and no excludes file of git's to honour.
	case err != nil:
		return nil, "what git ignores cannot be read (" + err.Error() + "): no file is looked at"
	}
	ignored = make(map[string]bool, len(list))
	for _, p := range list {
		ignored[p] = true
	}
	return ignored, ""
}

// tooBig says that the tree at root is too big to watch.
func tooBig(root string, lim Limits) string {
	return fmt.Sprintf("the session's directory (%s) holds more than %d files (or %s of their names) outside git, too many to watch: --show-changes stands aside for this session",
		root, lim.MaxFiles, sizeWords(maxPathBytes))
}

// copyBefore reads the small regular files of files, in their order,
// while the byte budget lasts; a binary file keeps only its hash.
func copyBefore(d *beneath.Dir, files []dirFile, lim Limits) {
	budget := lim.MaxCopyBytes
	for i := range files {
		p, v := files[i].rel, files[i].v
		if v.kind != regular {
			continue
		}
		if v.size > lim.MaxFileBytes || v.size > budget {
			files[i].v.why = notCopied(v, lim)
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
		files[i].v = read
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
// text differs, reading only those shown. The scan meets the before-state's
// files in their order, keeping only those whose stat changed (no second
// map of the tree); only those are asked of git's ignore rules: the
// others were asked when the before-state was taken.
func (s *dirSnap) Changes(ctx context.Context) Report {
	d, err := beneath.OpenDir(s.real)
	if err != nil {
		return Report{Files: []Change{}, Note: fmt.Sprintf("cannot open %s: %v", s.root, err)}
	}
	defer d.Close()
	maybe, sawIgnore, note, check := s.rescan(ctx, d)
	if maybe == nil {
		return Report{Files: []Change{}, Note: "not looked at: " + tooBig(s.root, s.lim)}
	}
	if note == "" {
		note = s.note
	}
	var ignored map[string]bool
	if check != nil {
		var present []string
		for _, m := range maybe {
			if m.after.kind != absent {
				present = append(present, m.rel)
			}
		}
		list, err := check.ask(present)
		var why string
		if ignored, why = ignoredSet(list, err, sawIgnore); why != "" {
			return Report{Files: []Change{}, Note: why}
		}
	}
	var cands []candidate
	for _, m := range maybe {
		if ignored[m.rel] {
			m.after = version{} // ignored now: as if gone
		}
		if differs(d, m.rel, m.before, m.after, s.lim.MaxFileBytes) {
			cands = append(cands, candidate{rel: m.rel, before: m.before})
		}
	}
	shown, more := shownOf(cands, s.lim)
	cs, deleted := changesOf(s.root, d, shown, nil, s.lim)
	return finish(cs, deleted, more, note)
}

// maybeChanged is a path whose stat tells it may have changed since the
// before-state: there before, after, or both.
type maybeChanged struct {
	rel           string
	before, after version
}

// rescan walks the directory again beside the before-state's list, both
// in walkOrder, and lists the paths whose stat tells they may have
// changed; nil when the tree is now too big to watch. git's check-ignore
// is started (check) on the first path there now that may have changed.
func (s *dirSnap) rescan(ctx context.Context, d *beneath.Dir) (maybe []maybeChanged, sawIgnore bool, note string, check *earlyCheck) {
	maybe = []maybeChanged{}
	b := newBound(s.lim)
	i := 0
	gone := func(folder, name string) { // the files of the list before folder+name are not there now
		for ; i < len(s.files) && (name == "" || walkOrderOf(s.files[i].rel, folder, name) < 0); i++ {
			if f := s.files[i]; !s.unchanged(f.v, version{}) {
				maybe = append(maybe, maybeChanged{rel: f.rel, before: f.v})
			}
		}
	}
	note = walkFiles(ctx, s.real, d, func(folder, name string, after version) bool {
		if !b.fits(len(folder) + len(name)) {
			return false
		}
		sawIgnore = sawIgnore || name == ".gitignore"
		gone(folder, name)
		var before version
		if i < len(s.files) && isPath(s.files[i].rel, folder, name) {
			before = s.files[i].v
			i++
		}
		if !s.unchanged(before, after) { // the path is made only here: a scan of nothing changed allocates little
			maybe = append(maybe, maybeChanged{rel: folder + name, before: before, after: after})
			if check == nil {
				check = startCheckIgnore(ctx, s.real)
			}
		}
		return true
	})
	if b.past {
		if check != nil {
			_, _ = check.ask(nil)
		}
		return nil, false, "", nil
	}
	if note == "" { // a scan stopped early has not seen the rest gone
		gone("", "")
	}
	return maybe, sawIgnore, note, check
}

// isPath reports whether rel is folder+name.
func isPath(rel, folder, name string) bool {
	return len(rel) == len(folder)+len(name) && strings.HasPrefix(rel, folder) && rel[len(folder):] == name
}

// unchanged reports whether a path's stat tells it did not change from
// before to after: the same stat, not written within racyWindow before the
// state was taken (a write of the same size may follow within the
// timestamps' grain), nor while it was taken.
func (s *dirSnap) unchanged(before, after version) bool {
	return before.sameStat(after) && !(before.read && before.mtime >= s.racy) && !before.during
}

func (s *dirSnap) Close() {}
