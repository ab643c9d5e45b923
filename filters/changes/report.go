package changes

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Report is what changed under a session's directory while a call ran, as
// the trace records it (a "read" record of kind "changes"), so that a
// replay shows the same update on any machine.
type Report struct {
	Files []Change `json:"files"`
	// More counts the changed files past Limits.MaxShown, not listed.
	More int `json:"more,omitempty"`
	// Note says what the scan could not look at (git failed, the file cap),
	// so the update says it.
	Note string `json:"note,omitempty"`
	// Since is the moment the report counts from, as the update says it
	// ("since the prompt was sent"): which before-state a command took
	// depends on timing, so the trace keeps it.
	Since string `json:"since,omitempty"`
	// Earlier: the command compared with the rest before the one standing,
	// which was still being taken as it started.
	Earlier bool `json:"earlier,omitempty"`
	// Later names the calls of the session that started after the command
	// ended but before its report was made: the report may hold their
	// first writes.
	Later string `json:"later,omitempty"`
	// Aside: the flag stands aside for the session's directory (the root,
	// your home folder), as Note says; said on the session's first update
	// only.
	Aside bool `json:"aside,omitempty"`
}

// Change is one file that changed.
type Change struct {
	Path string `json:"path"` // absolute
	Op   string `json:"op"`   // created, modified, deleted
	// Old and New are the text before and after, when the diff is shown:
	// Old is absent for a created file, New is "" for a deleted one.
	Old *string `json:"old,omitempty"`
	New *string `json:"new,omitempty"`
	// Hash names the file after, so that the filter never shows a change
	// twice (a diff already showed it, or an update before): the SHA-256
	// of its text (hex), "stat:SIZE:MTIME" when it was not read (too
	// large, unreadable), "deleted" for a file deleted.
	Hash string `json:"hash,omitempty"`
	// MovedFrom (a created file) and MovedTo (a deleted one) pair the two
	// sides of a rename: the same content left one path and reached another.
	MovedFrom string `json:"movedFrom,omitempty"`
	MovedTo   string `json:"movedTo,omitempty"`
	// Mode is the change of a file's mode as git says it ("100644 →
	// 100755", chmod +x), "" when it kept its mode.
	Mode string `json:"mode,omitempty"`
	// Why says why the diff is not shown ("" when it is, or when only the
	// mode changed).
	Why string `json:"why,omitempty"`
	// When places the change against the call's run, by the file's time
	// (a deletion: its folder's): "before" the call was announced, "as" it
	// was (too close to tell), "after" it ended; "" while it ran. The
	// update says it: a change made before is not the command's.
	When string `json:"when,omitempty"`
	// mtime is the file's modification time after (its folder's for a
	// deletion, dirTime), 0 when not known; the report's maker sets When
	// from it.
	mtime   int64
	dirTime bool
}

// deletedMark is a deleted file's Hash.
const deletedMark = "deleted"

// Operations of a Change.
const (
	Created  = "created"
	Modified = "modified"
	Deleted  = "deleted"
	// Written: created or modified, the before-state having seen the
	// write as it was taken.
	Written = "written"
)

// compare is the change of path from before to after, and whether there is
// one. unsure is set when before's content is not known, so that only its
// stat tells (a file not copied).
func compare(path string, before, after version) (Change, bool) {
	switch {
	case before.kind == absent && after.kind == absent:
		return Change{}, false
	case before.during && after.kind != absent:
		return writtenDuring(path, after), true
	case before.read && after.read && before.kind == after.kind && before.hash == after.hash && gitMode(before) == gitMode(after):
		return Change{}, false
	case !(before.read && after.read) && before.sameStat(after):
		return Change{}, false
	}
	c := Change{Path: path, Op: Modified, mtime: after.mtime}
	switch {
	case before.kind == absent:
		c.Op = Created
	case after.kind == absent:
		c.Op = Deleted
	}
	switch {
	case after.read:
		c.Hash = hex.EncodeToString(after.hash[:])
	case c.Op == Deleted:
		c.Hash = deletedMark
	default:
		c.Hash = fmt.Sprintf("stat:%d:%d", after.size, after.mtime)
	}
	if c.Op == Modified && gitMode(before) != gitMode(after) {
		c.Mode = gitMode(before) + " → " + gitMode(after)
		c.Hash += ":" + gitMode(after) // a diff of the same text does not show it
		if before.read && after.read && before.hash == after.hash {
			return c, true // the mode alone
		}
	}
	c.Why = whyNoDiff(c.Op, before, after)
	if c.Why != "" {
		return c, true
	}
	if c.Op != Created {
		old := string(before.content)
		c.Old = &old
	}
	now := string(after.content) // "" for a deleted file
	c.New = &now
	return c, true
}

// whyDuring says why a file written while its before-state was taken has
// no diff.
const whyDuring = "it was written while the proxy was taking the state before this command, so its text before is not known (written before the command started, or by it)"

// writtenDuring is the change of a file written while its before-state was
// taken, after: named, its text before not known.
func writtenDuring(path string, after version) Change {
	c := Change{Path: path, Op: Written, mtime: after.mtime, Why: whyDuring}
	if after.read {
		c.Hash = hex.EncodeToString(after.hash[:])
	} else {
		c.Hash = fmt.Sprintf("stat:%d:%d", after.size, after.mtime)
	}
	return c
}

// gitMode is v's mode as git records it: 100644, 100755 (executable),
// 120000 (a symbolic link); "" for anything else.
func gitMode(v version) string {
	switch {
	case v.kind == symlink:
		return "120000"
	case v.kind != regular:
		return ""
	case v.mode&0o111 != 0:
		return "100755"
	}
	return "100644"
}

// whyNoDiff says why the change of op from before to after has no diff, or
// "" when both sides are text the proxy holds.
func whyNoDiff(op string, before, after version) string {
	side := func(v version) string {
		switch {
		case v.kind == absent || v.read && v.text:
			return ""
		case v.why != "":
			return v.why
		}
		return "not read"
	}
	b, a := side(before), side(after)
	switch {
	case op == Created || b == "":
		return a
	case op == Deleted || a == "" || a == b:
		return b
	}
	return "before: " + b + "; after: " + a
}

// pairRenames marks a deleted file and a created one with the same content
// as the two sides of a rename (each shown, said in words).
func pairRenames(cs []Change, deletedHash map[string]string) {
	created := map[string]int{}
	for i, c := range cs {
		if c.Op == Created && c.Hash != "" {
			if _, dup := created[c.Hash]; !dup {
				created[c.Hash] = i
			}
		}
	}
	for i, c := range cs {
		h := deletedHash[c.Path]
		if c.Op != Deleted || h == "" {
			continue
		}
		if j, ok := created[h]; ok && cs[j].MovedFrom == "" {
			cs[i].MovedTo, cs[j].MovedFrom = cs[j].Path, c.Path
		}
	}
}

// finish sorts cs by path and pairs renames; more counts the changes not
// listed.
func finish(cs []Change, deletedHash map[string]string, more int, note string) Report {
	slices.SortFunc(cs, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	pairRenames(cs, deletedHash)
	r := Report{Files: cs, More: more, Note: note}
	if r.Files == nil {
		r.Files = []Change{}
	}
	return r
}

// hashHex is the hex SHA-256 a deleted version had, when it was read.
func hashHex(v version) string {
	if !v.read {
		return ""
	}
	return hex.EncodeToString(v.hash[:])
}

// skipped reports whether rel (slash-separated, relative to the scanned
// directory) lies in a folder no scan shows: .git, a client's own (see
// neverShown), and, for a file git does not track (untracked: every file
// outside git), a dependency or build folder (see buildDirs). A file git
// tracks is shown wherever it lies: a committed bundle in dist/ is the
// project's.
func skipped(rel string, untracked bool) bool {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return false
		}
		if dir := rel[:i]; neverShown[dir] || untracked && buildDirs[dir] {
			return true
		}
		rel = rel[i+1:]
	}
}

// skipDir reports whether a scan outside git enters no folder named name.
func skipDir(name string) bool { return neverShown[name] || buildDirs[name] }

// neverShown are the folders whose files are never shown: git's own, and
// those a client writes in the project for itself (agent-shell's
// transcripts), which no command of the agent's made.
var neverShown = map[string]bool{".git": true, ".agent-shell": true}

// buildDirs are the dependency and build folders whose untracked files no
// scan looks at: what a package manager or a build writes there is not
// the project's change.
var buildDirs = map[string]bool{
	"node_modules": true, "target": true, "dist": true, "build": true, ".venv": true, "venv": true,
	"__pycache__": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true, ".tox": true,
	".next": true, ".nuxt": true, ".gradle": true, ".cache": true, ".terraform": true,
}
