package changes

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxNested bounds the repositories of their own a before-state looks
// into, at each level.
const maxNested = 16

// nestedRepos are the repositories of their own below a git snapshot's
// directory — submodules, and repositories git lists as untracked folders
// — whose files the outer repository's status does not show: each has a
// before-state of its own, and those past maxNested are named.
type nestedRepos struct {
	snaps     map[string]Snapshot // by path relative to the directory, no trailing "/"
	notLooked []string
}

// takeNested takes the before-states of the repositories of their own
// below root (top is the work tree's top, prefix root's path in it), and
// takes them out of status: they are looked into, not at.
func takeNested(ctx context.Context, root, top, prefix string, status map[string]statusEntry, lim Limits) nestedRepos {
	var rels []string
	for rel, e := range status {
		if e.x == '?' && strings.HasSuffix(rel, "/") {
			rels = append(rels, strings.TrimSuffix(rel, "/"))
			delete(status, rel)
		}
	}
	rels = append(rels, submodules(ctx, root, top, prefix)...)
	slices.Sort(rels)
	n := nestedRepos{snaps: map[string]Snapshot{}}
	for _, rel := range rels {
		if len(n.snaps) >= maxNested {
			n.notLooked = append(n.notLooked, rel)
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		snap, ok := takeGit(ctx, dir, lim)
		if g, isGit := snap.(*gitSnap); ok && isGit && sameDir(g.top, dir) {
			n.snaps[rel] = snap
		} else if ok {
			snap.Close() // not a repository of its own: a submodule not checked out
		}
	}
	return n
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// submodules are the submodules below root, relative to it, as the index
// lists them (mode 160000); none is looked for without a .gitmodules.
func submodules(ctx context.Context, root, top, prefix string) []string {
	if _, err := os.Lstat(filepath.Join(top, ".gitmodules")); err != nil {
		return nil
	}
	var rels []string
	_ = gitStream(ctx, root, gitEnv(literal), nil, func(br *bufio.Reader) error {
		for {
			rec, err := br.ReadBytes(0)
			if err != nil {
				return nil
			}
			tab := bytes.IndexByte(rec, '\t')
			if tab < 0 || !bytes.HasPrefix(rec, []byte("160000 ")) {
				continue
			}
			if rel, ok := strings.CutPrefix(string(rec[tab+1:len(rec)-1]), prefix); ok {
				rels = append(rels, rel)
			}
		}
	}, "ls-files", "-s", "-z", "--full-name", "--", ".")
	return rels
}

// merge adds what changed in the repositories of their own to r, at most
// lim.MaxShown files listed in all.
func (n nestedRepos) merge(ctx context.Context, r Report, lim Limits) Report {
	var notes []string
	if r.Note != "" {
		notes = append(notes, r.Note)
	}
	for _, rel := range slices.Sorted(maps.Keys(n.snaps)) {
		nr := n.snaps[rel].Changes(ctx)
		r.Files, r.More = append(r.Files, nr.Files...), r.More+nr.More
		if nr.Note != "" {
			notes = append(notes, rel+" (a repository of its own): "+nr.Note)
		}
	}
	if len(n.notLooked) > 0 {
		notes = append(notes, fmt.Sprintf("not looked into (past %d repositories of their own here): %s", maxNested, strings.Join(n.notLooked, ", ")))
	}
	r.Note = strings.Join(notes, "\n")
	slices.SortFunc(r.Files, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	if lim.MaxShown > 0 && len(r.Files) > lim.MaxShown {
		r.More += len(r.Files) - lim.MaxShown
		r.Files = r.Files[:lim.MaxShown]
	}
	return r
}

func (n nestedRepos) close() {
	for _, s := range n.snaps {
		s.Close()
	}
}
