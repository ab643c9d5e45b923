package changes

import (
	"crypto/sha256"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// A report is made in two steps. First the files that changed are chosen
// on their stat, their hash (a file whose before-state holds a copy) and
// git's status, holding no text. Then only those shown (the first
// Limits.MaxShown by path) are read, within Limits.MaxCopyBytes of text for
// the whole update, a blob streamed from git: a command that wrote a
// hundred files costs the reading of the few shown, not of the hundred.

// candidate is a path that changed, as stat, hash or status tell, before
// any text is read for the report.
type candidate struct {
	rel    string
	before version // stat, and a copy's text when the before-state holds one
	// blob: git, before is this blob of the index at the start, read only
	// when the change is shown.
	blob *indexEntry
}

// differs reports whether a path changed from before (what the
// before-state holds) to after (its stat now), hashing the file when
// before holds a copy's hash: no text is kept.
func differs(d *beneath.Dir, rel string, before, after version, max int64) bool {
	switch {
	case before.kind == absent && after.kind == absent:
		return false
	case before.during || before.kind != after.kind:
		return true
	case before.read && after.kind == regular:
		if h, ok := hashFile(d, rel, max); ok {
			return h != before.hash || gitMode(before) != gitMode(after)
		}
	}
	return !before.sameStat(after)
}

// copyBuffers are the buffers hashFile streams files through.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashFile is the SHA-256 of the regular file rel under d of at most max
// bytes, read through a buffer of its own; ok is false when it cannot be
// read so.
func hashFile(d *beneath.Dir, rel string, max int64) (sum [sha256.Size]byte, ok bool) {
	f, err := d.Open(rel)
	if err != nil {
		return sum, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return sum, false
	}
	h := sha256.New()
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	n, err := io.CopyBuffer(h, io.LimitReader(f, max+1), *buf)
	if err != nil || n > max {
		return sum, false
	}
	h.Sum(sum[:0])
	return sum, true
}

// shownOf sorts cands by path and keeps the first lim.MaxShown; more
// counts the rest.
func shownOf(cands []candidate, lim Limits) (shown []candidate, more int) {
	slices.SortFunc(cands, func(a, b candidate) int { return strings.Compare(a.rel, b.rel) })
	if lim.MaxShown > 0 && len(cands) > lim.MaxShown {
		return cands[:lim.MaxShown], len(cands) - lim.MaxShown
	}
	return cands, 0
}

// changesOf reads the shown candidates now (a blob's before-state from
// blobs) and makes their changes, within lim.MaxCopyBytes of text in all;
// past it, a change is said without its diff. deleted maps each change's
// path to the hash its before-state had, to pair renames.
func changesOf(root string, d *beneath.Dir, shown []candidate, blobs map[string]version, lim Limits) (cs []Change, deleted map[string]string) {
	deleted = map[string]string{}
	budget := lim.MaxCopyBytes
	for _, c := range shown {
		before := c.before
		if c.blob != nil {
			before = blobs[c.rel]
		}
		after := stat(d, c.rel)
		if strings.HasSuffix(c.rel, "/") { // a folder git lists whole: a repository it does not enter
			after.why = "a repository of its own, made since: its files are not looked at"
		}
		if after.kind == regular && after.size > budget && after.size <= lim.MaxFileBytes {
			after.why = leftOut(lim) // not read
		} else if after.kind == regular {
			after = readVersion(d, c.rel, lim.MaxFileBytes)
		}
		ch, ok := compare(filepath.Join(root, filepath.FromSlash(c.rel)), before, after)
		if !ok {
			continue // the same text after all (a file written back as it was)
		}
		if ch.Op == Deleted { // when it left, its folder's time tells at best
			ch.mtime, ch.dirTime = stat(d, path.Dir(c.rel)).mtime, true
		}
		if n := textBytes(ch); n > budget {
			ch.Old, ch.New, ch.Why = nil, nil, leftOut(lim)
		} else {
			budget -= n
		}
		cs = append(cs, ch)
		deleted[ch.Path] = hashHex(before)
	}
	return cs, deleted
}

// textBytes is the text a change's diff holds.
func textBytes(c Change) int64 {
	var n int
	if c.Old != nil {
		n += len(*c.Old)
	}
	if c.New != nil {
		n += len(*c.New)
	}
	return int64(n)
}

// leftOut says why a diff is not in an update whose text is spent.
func leftOut(lim Limits) string {
	return fmt.Sprintf("its diff is left out: one update holds at most %s of text", sizeWords(lim.MaxCopyBytes))
}
