package changes

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tree is a directory for a test: its files (path → text), optionally a
// git work tree with every file committed.
type tree struct {
	files map[string]string
	git   bool
	setup string // a script run once the files are written, before git commits them
	// afterGit is a script run once git committed the files.
	afterGit string
	// linked: the directory returned is a symbolic link to the tree, as a
	// session's may be (macOS's /tmp is one).
	linked bool
}

func (tr tree) make(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for p, text := range tr.files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tr.setup != "" {
		sh(t, dir, tr.setup)
	}
	if tr.git {
		sh(t, dir, "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm start")
	}
	if tr.afterGit != "" {
		sh(t, dir, tr.afterGit)
	}
	if tr.linked {
		link := filepath.Join(t.TempDir(), "project")
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		return link
	}
	return dir
}

// sh runs script in bash in dir, failing the test when it fails.
func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// seen is a change as a test row states it: the operation, the path
// relative to the tree, and the text before and after or why no diff.
type seen struct {
	op, path  string
	old, new  string // "-": not shown
	why       string // a part of Why
	movedFrom string
	movedTo   string
}

// noDiff is a change shown without its diff, and why.
func noDiff(op, path, why string) seen { return seen{op: op, path: path, old: "-", new: "-", why: why} }

func summarise(dir string, r Report) []seen {
	var out []seen
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		r, _ := filepath.Rel(dir, p)
		return filepath.ToSlash(r)
	}
	for _, c := range r.Files {
		s := seen{op: c.Op, path: rel(c.Path), old: "-", new: "-", why: c.Why, movedFrom: rel(c.MovedFrom), movedTo: rel(c.MovedTo)}
		if c.Old != nil {
			s.old = *c.Old
		}
		if c.New != nil {
			s.new = *c.New
		}
		out = append(out, s)
	}
	return out
}

func matches(got, want []seen) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.op != w.op || g.path != w.path || g.old != w.old || g.new != w.new || g.movedFrom != w.movedFrom ||
			g.movedTo != w.movedTo || (w.why == "") != (g.why == "") || !strings.Contains(g.why, w.why) {
			return false
		}
	}
	return true
}

var testLimits = Limits{MaxFileBytes: 1 << 20, MaxCopyBytes: 4 << 20, MaxFiles: 10_000, MaxShown: 20}

// TestRealCommands runs real commands between a snapshot and its report,
// in a git work tree and outside git, and checks each change is reported
// as the files say.
func TestRealCommands(t *testing.T) {
	base := map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n", "main.go": "package main\nfunc main(){\n}\n",
		"sub/c.txt": "gamma\n", ".gitignore": "secret.env\nlogs/\n"}
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n"
	rows := []struct {
		name   string
		script string
		want   []seen
	}{
		{"nothing", "true", nil},
		{"cp", "cp a.txt copy.txt", []seen{{op: Created, path: "copy.txt", old: "-", new: "alpha\n"}}},
		{"mv", "mv b.txt sub/moved.txt", []seen{
			{op: Deleted, path: "b.txt", old: "beta\n", new: "", movedTo: "sub/moved.txt"},
			{op: Created, path: "sub/moved.txt", old: "-", new: "beta\n", movedFrom: "b.txt"}}},
		{"git apply", "git apply <<'EOF'\n" + patch + "EOF", []seen{{op: Modified, path: "a.txt", old: "alpha\n", new: "ALPHA\n"}}},
		{"rm", "rm sub/c.txt", []seen{{op: Deleted, path: "sub/c.txt", old: "gamma\n", new: ""}}},
		{"patch", "patch -s -p1 <<'EOF'\n" + patch + "EOF", []seen{{op: Modified, path: "a.txt", old: "alpha\n", new: "ALPHA\n"}}},
		{"python write", `python3 -c "open('py.txt','w').write('from python\n'); open('a.txt','a').write('more\n')"`, []seen{
			{op: Modified, path: "a.txt", old: "alpha\n", new: "alpha\nmore\n"},
			{op: Created, path: "py.txt", old: "-", new: "from python\n"}}},
		{"gofmt -w", "gofmt -w main.go", []seen{{op: Modified, path: "main.go", old: "package main\nfunc main(){\n}\n", new: "package main\n\nfunc main() {\n}\n"}}},
		{"sed -i", "sed -i s/gamma/GAMMA/ sub/c.txt", []seen{{op: Modified, path: "sub/c.txt", old: "gamma\n", new: "GAMMA\n"}}},
		{"ignored files never", "echo TOKEN=x > secret.env && mkdir -p logs && echo l > logs/x.log && mkdir -p node_modules/p && echo j > node_modules/p/i.js", nil},
		{"binary", "printf 'a\\0b' > bin.dat", []seen{noDiff(Created, "bin.dat", "binary")}},
		{"large", "head -c 52428800 /dev/zero | tr '\\0' x > big.txt", []seen{noDiff(Created, "big.txt", "larger than 1 MiB (52428800 bytes)")}},
		{"symlink out", "ln -s /etc/hostname link", []seen{noDiff(Created, "link", "a symbolic link (to /etc/hostname); the proxy never follows one")}},
	}
	for _, git := range []bool{true, false} {
		for _, row := range rows {
			name := row.name + map[bool]string{true: " in git", false: " outside git"}[git]
			t.Run(name, func(t *testing.T) {
				dir := tree{files: base, git: git}.make(t)
				snap := Take(bg, dir, testLimits)
				sh(t, dir, row.script)
				r := snap.Changes(bg)
				want := row.want
				if got := summarise(dir, r); !matches(got, want) || r.Note != "" {
					t.Errorf("after %q:\n got %+v (note %q)\nwant %+v", row.script, got, r.Note, want)
				}
			})
		}
	}
}

// A session in a folder of a work tree sees only that folder's changes,
// with the index's text of the files it holds.
func TestASessionInAFolderOfAWorkTree(t *testing.T) {
	dir := tree{files: map[string]string{"a.txt": "top\n", "sub/c.txt": "gamma\n"}, git: true}.make(t)
	sub := filepath.Join(dir, "sub")
	snap := Take(bg, sub, testLimits)
	sh(t, dir, "echo changed > a.txt && sed -i s/gamma/GAMMA/ sub/c.txt")
	r := snap.Changes(bg)
	want := []seen{{op: Modified, path: "c.txt", old: "gamma\n", new: "GAMMA\n"}}
	if got := summarise(sub, r); !matches(got, want) || r.Note != "" {
		t.Errorf("got %+v (note %q), want %+v", got, r.Note, want)
	}
}

// A command that stages or commits what it wrote leaves no trace in git
// status: the index kept open since the start still holds the text before.
func TestACommittedChangeIsStillShown(t *testing.T) {
	for _, script := range []string{
		"echo more >> a.txt && git add a.txt",
		"echo more >> a.txt && git add a.txt && git -c user.email=t@t -c user.name=t commit -qm more",
		"git rm -q sub/c.txt && git -c user.email=t@t -c user.name=t commit -qm gone",
	} {
		dir := tree{files: map[string]string{"a.txt": "alpha\n", "sub/c.txt": "gamma\n"}, git: true}.make(t)
		snap := Take(bg, dir, testLimits)
		sh(t, dir, script)
		want := []seen{{op: Modified, path: "a.txt", old: "alpha\n", new: "alpha\nmore\n"}}
		if strings.Contains(script, "git rm") {
			want = []seen{{op: Deleted, path: "sub/c.txt", old: "gamma\n", new: ""}}
		}
		r := snap.Changes(bg)
		if got := summarise(dir, r); !matches(got, want) || r.Note != "" {
			t.Errorf("after %q: got %+v (note %q), want %+v", script, got, r.Note, want)
		}
		snap.Close()
	}
}

// A FIFO is named, never opened (opening one would block the scan);
// git status does not list one, so in a git work tree it is not seen.
func TestAFIFOIsNeverOpened(t *testing.T) {
	for git, want := range map[bool][]seen{false: {noDiff(Created, "pipe", "not a regular file (p---------)")}, true: nil} {
		dir := tree{files: map[string]string{"a": "a\n"}, git: git}.make(t)
		snap := Take(bg, dir, testLimits)
		sh(t, dir, "mkfifo pipe")
		r := snap.Changes(bg)
		if got := summarise(dir, r); !matches(got, want) || r.Note != "" {
			t.Errorf("git %v: got %+v (note %q), want %+v", git, got, r.Note, want)
		}
	}
}

// bg is the context of the scans a test makes.
var bg = context.Background()

// A session's directory reached through a symbolic link (macOS's /tmp is
// one) is scanned where it leads, and its changes named under the
// session's own name for it.
func TestASymlinkedSessionDirectoryIsScanned(t *testing.T) {
	for _, git := range []bool{true, false} {
		dir := tree{files: map[string]string{"a.txt": "alpha\n"}, git: git}.make(t)
		link := filepath.Join(t.TempDir(), "project")
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		snap := Take(bg, link, testLimits)
		sh(t, dir, "echo beta > b.txt && echo more >> a.txt")
		r := snap.Changes(bg)
		snap.Close()
		want := []seen{{op: Modified, path: "a.txt", old: "alpha\n", new: "alpha\nmore\n"}, {op: Created, path: "b.txt", old: "-", new: "beta\n"}}
		if got := summarise(link, r); !matches(got, want) || r.Note != "" {
			t.Errorf("git %v: got %+v (note %q), want %+v", git, got, r.Note, want)
		}
	}
}
