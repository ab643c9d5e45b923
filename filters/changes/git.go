package changes

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// gitSnap is the before-state of a directory in a git work tree: what git
// status listed, the text of the files whose work-tree copy git does not
// hold (changed or untracked), and the index as it was, kept open: git
// replaces the index by renaming a new file over it, so the open file
// still reads the index of the call's start, which holds every other
// file's text.
type gitSnap struct {
	root   string // the session's directory
	top    string // the work tree's top
	prefix string // root relative to the work tree's top, "" or ending in "/"
	lim    Limits
	status map[string]statusEntry
	dirty  map[string]version // the work-tree files the index does not hold
	index  *os.File           // nil: the repository had no index
	indexI os.FileInfo
	nested nestedRepos // repositories of their own below root
	// flagged are the files git is told not to look at, with their stat.
	flagged map[string]version
}

// takeGit takes the before-state of root in a git work tree; ok is false
// when root is in none (or git cannot run).
func takeGit(ctx context.Context, root string, lim Limits) (Snapshot, bool) {
	out, err := git(ctx, root, gitEnv(), nil, "rev-parse", "--is-inside-work-tree", "--absolute-git-dir", "--show-toplevel", "--show-prefix")
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil || len(lines) < 3 || lines[0] != "true" {
		return nil, false
	}
	start := takeStart(ctx)
	s := &gitSnap{root: root, top: lines[2], lim: lim}
	if len(lines) > 3 {
		s.prefix = lines[3]
	}
	if f, err := os.Open(filepath.Join(lines[1], "index")); err == nil {
		s.index = f
		s.indexI, _ = f.Stat()
	}
	if s.status, err = gitStatus(ctx, root, s.prefix); err != nil {
		s.Close()
		return failed{"git status failed before the command ran: " + err.Error()}, true
	}
	s.nested = takeNested(ctx, root, s.top, s.prefix, s.status, lim)
	r, err := beneath.OpenDir(root)
	if err != nil {
		s.Close()
		return failed{fmt.Sprintf("cannot open %s: %v", root, err)}, true
	}
	defer r.Close()
	s.dirty = map[string]version{}
	budget := lim.MaxCopyBytes
	for rel, e := range s.status {
		if !e.worktreeDirty() {
			continue
		}
		v := stat(r, rel)
		if v.kind == regular && v.size <= lim.MaxFileBytes && v.size <= budget {
			v = readVersion(r, rel, lim.MaxFileBytes)
			budget -= v.size
		} else if v.kind == regular {
			v.why = notCopied(v, lim)
		}
		s.dirty[rel] = v
	}
	markDuring(s.dirty, start)
	s.flagged = flaggedFiles(ctx, root, s.prefix, r)
	return s, true
}

func (s *gitSnap) Close() {
	s.nested.close()
	if s.index != nil {
		s.index.Close()
		s.index = nil
	}
}

// Changes lists what git status lists now or listed then (and, when the
// index changed, what it changed), chooses the files that changed on
// status, the index's blobs and the copies' hashes, and reads those shown:
// the file now, and its before-state (the copy, or the blob the index
// held).
func (s *gitSnap) Changes(ctx context.Context) Report {
	now, err := gitStatus(ctx, s.root, s.prefix)
	if err != nil {
		return Report{Files: []Change{}, Note: "git status failed after the command ran: " + err.Error()}
	}
	oldIndex, indexChanged, cleanup, err := s.oldIndex()
	if err != nil {
		return Report{Files: []Change{}, Note: "the index before the command cannot be read: " + err.Error()}
	}
	defer cleanup()
	cands := map[string]bool{}
	for rel := range s.dirty {
		cands[rel] = true
	}
	for rel := range s.nested.snaps {
		delete(now, rel+"/") // looked into, not at
	}
	for rel, e := range now {
		if indexChanged || e.worktreeDirty() || s.status[rel].worktreeDirty() {
			cands[rel] = true
		}
	}
	idx, err := s.indexEntries(ctx, oldIndex, cands, indexChanged)
	if err != nil {
		return Report{Files: []Change{}, Note: "the index before the command cannot be read: " + err.Error()}
	}
	d, err := beneath.OpenDir(s.root)
	if err != nil {
		return Report{Files: []Change{}, Note: fmt.Sprintf("cannot open %s: %v", s.root, err)}
	}
	defer d.Close()
	var list []candidate
	for rel := range cands {
		if c, ok := s.candidate(d, rel, now, idx); ok {
			list = append(list, c)
		}
	}
	list = s.flaggedChanged(d, cands, list)
	shown, more := shownOf(list, s.lim)
	blobs, err := s.blobsOf(ctx, shown)
	if err != nil {
		return Report{Files: []Change{}, Note: "the index before the command cannot be read: " + err.Error()}
	}
	cs, deleted := changesOf(s.root, d, shown, blobs, s.lim)
	return s.nested.merge(ctx, finish(cs, deleted, more, ""), s.lim)
}

// indexes are the entries of the index at the call's start (old) and now
// (cur, when the index changed) that a report looks at.
type indexes struct {
	old, cur map[string]indexEntry
	changed  bool
}

// candidate is rel as a change, when it changed: chosen on the copy's
// hash, or, for a file the index held, on git's status and the two
// indexes, reading no text.
func (s *gitSnap) candidate(d *beneath.Dir, rel string, now map[string]statusEntry, idx indexes) (candidate, bool) {
	after := stat(d, rel)
	if b, ok := s.dirty[rel]; ok {
		return candidate{rel: rel, before: b}, differs(d, rel, b, after, s.lim.MaxFileBytes)
	}
	e, ok := idx.old[rel]
	if !ok { // neither in the index nor in the work tree at the start
		return candidate{rel: rel}, after.kind != absent
	}
	changed := after.kind == absent || now[rel].worktreeDirty() || idx.changed && idx.cur[rel] != e
	return candidate{rel: rel, blob: &e}, changed
}

// blobsOf reads the blobs the shown candidates' before-states are, within
// the update's text budget.
func (s *gitSnap) blobsOf(ctx context.Context, shown []candidate) (map[string]version, error) {
	var oids []string
	for _, c := range shown {
		if c.blob != nil {
			oids = append(oids, c.blob.oid)
		}
	}
	blobs, err := catBlobs(ctx, s.root, oids, s.lim.MaxFileBytes, s.lim.MaxCopyBytes)
	if err != nil {
		return nil, err
	}
	before := map[string]version{}
	for _, c := range shown {
		if c.blob != nil {
			before[c.rel] = blobVersion(*c.blob, blobs, s.lim)
		}
	}
	return before, s.asInWorkTree(ctx, shown, before)
}

// oldIndex is the path of the index as it was at the call's start, and
// whether it changed since: the repository's own when it did not, else a
// copy of the file kept open, which cleanup removes.
func (s *gitSnap) oldIndex() (path string, changed bool, cleanup func(), err error) {
	cleanup = func() {}
	if s.index == nil {
		return "", false, cleanup, nil
	}
	fi, err := os.Stat(s.index.Name())
	if err == nil && os.SameFile(fi, s.indexI) && fi.ModTime().Equal(s.indexI.ModTime()) && fi.Size() == s.indexI.Size() {
		return "", false, cleanup, nil
	}
	tmp, err := os.CreateTemp("", "acp-proxy-index-")
	if err != nil {
		return "", true, cleanup, err
	}
	cleanup = func() { os.Remove(tmp.Name()) }
	_, err = io.Copy(tmp, io.NewSectionReader(s.index, 0, s.indexI.Size()))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	return tmp.Name(), true, cleanup, err
}

// indexEntries are the entries, in the index at oldIndex, of the
// candidates whose work-tree file matched the index at the start, and,
// when the index changed, the entries now: the paths it changed become
// candidates too (a commit leaves no trace in status).
func (s *gitSnap) indexEntries(ctx context.Context, oldIndex string, cands map[string]bool, changed bool) (indexes, error) {
	idx := indexes{changed: changed}
	keep := func(rel string) bool { return cands[rel] && !s.status[rel].worktreeDirty() }
	if changed {
		keep = func(rel string) bool { return !skipped(rel, false) } // the index holds tracked files
	}
	var only []string
	if !changed && len(cands) <= maxPathspecs {
		only = []string{}
		for rel := range cands {
			if !s.status[rel].worktreeDirty() {
				only = append(only, rel)
			}
		}
		if len(only) == 0 {
			return idx, nil
		}
	}
	var err error
	if idx.old, err = lsFiles(ctx, s.root, s.prefix, oldIndex, only, keep); err != nil || !changed {
		return idx, err
	}
	if idx.cur, err = lsFiles(ctx, s.root, s.prefix, "", nil, keep); err != nil {
		return idx, err
	}
	for rel, e := range idx.old {
		if idx.cur[rel] != e {
			cands[rel] = true
		}
	}
	for rel := range idx.cur {
		if _, ok := idx.old[rel]; !ok {
			cands[rel] = true
		}
	}
	return idx, nil
}

// maxPathspecs bounds the paths named to git ls-files; past it, it lists
// the whole index, and the filter keeps what it needs.
const maxPathspecs = 1000

// blobVersion is the version of a file the index held as e.
func blobVersion(e indexEntry, b blobs, lim Limits) version {
	content, read := b.content[e.oid]
	switch {
	case e.mode == "160000":
		return version{kind: other, why: "a submodule"}
	case b.missing[e.oid]:
		return version{kind: regular, why: "its text before the command is not in the repository (object " + e.oid + " is missing)"}
	case b.leftOut[e.oid]:
		return version{kind: regular, size: b.size[e.oid], why: leftOut(lim)}
	case e.mode == "120000":
		return version{kind: symlink, link: string(content), why: "a symbolic link (to " + string(content) + "); the proxy never follows one"}
	}
	v := version{kind: regular, size: b.size[e.oid], mode: 0o644}
	if e.mode == "100755" {
		v.mode = 0o755
	}
	if read {
		v.setContent(content)
		return v
	}
	v.why = fmt.Sprintf("larger than %s (%d bytes)", sizeWords(lim.MaxFileBytes), v.size)
	return v
}
