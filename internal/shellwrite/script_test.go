package shellwrite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptCase is one row of the spec for whole scripts: the files before, the script, the files it
// is shown writing (in order) and why the rest is not shown.
type scriptCase struct {
	script  string
	files   []string // before: path, content, …; a path ending in '/' is a directory, without content
	want    []string // shown: path, new content, …
	stop    string   // part of Edits' cut error; "" when everything is shown
	refused string   // part of ParseScript's error; the script is unknown as a whole
	noShell bool     // the script does not end, or eats memory, in a shell without sed's limits
}

func sc(script string) scriptCase { return scriptCase{script: script} }

func (c scriptCase) with(files ...string) scriptCase  { c.files = files; return c }
func (c scriptCase) shows(want ...string) scriptCase  { c.want = want; return c }
func (c scriptCase) stops(reason string) scriptCase   { c.stop = reason; return c }
func (c scriptCase) refuses(reason string) scriptCase { c.refused = reason; return c }
func (c scriptCase) notRun() scriptCase               { c.noShell = true; return c }

var scriptCases = []scriptCase{
	// A write, then other commands: the write is shown, the command stays a command.
	sc(lines("cat <<'EOF' > repro.py", "print(1)", "EOF", "ls repro.py")).shows("repro.py", "print(1)\n").stops(`"ls" is not known`),
	sc("echo x > f && ls f").shows("f", "x\n").stops(`"ls"`),
	sc(lines("cat <<'EOF' > f && ls f", "body", "EOF")).shows("f", "body\n").stops(`"ls"`),
	sc(lines("cat > a.txt <<'EOF'", "x", "EOF", "cat a.txt")).shows("a.txt", "x\n").stops("cat"),
	sc("echo x > f || true").shows("f", "x\n").stops("||"),
	sc("echo x > f; ls -la; echo y > g").shows("f", "x\n").stops(`"ls"`),
	// Comments on lines of their own.
	sc(lines("# Create the file", "cat <<'EOF' > a.txt", "hi", "EOF")).shows("a.txt", "hi\n"),
	sc(lines("  # indented", "echo a > f", "# last")).shows("f", "a\n"),
	sc("echo x > f # note").refuses("comment after a command"),
	// Several files, in the order written; a file written twice is one edit.
	sc(lines("cat <<'EOF' > a", "1", "EOF", "cat <<'EOF' > b", "2", "EOF")).shows("a", "1\n", "b", "2\n"),
	sc("echo a > f; echo b >> f; echo c > g; echo d >> f").shows("f", "a\nb\nd\n", "g", "c\n"),
	sc("echo x > f; echo y > ./f").shows("f", "y\n"),
	sc("echo x > f\necho y > sub/../f").with("sub/").shows("f", "y\n"),
	// Appends: old text and the bytes.
	sc(lines("cat <<'EOF' >> log.txt", "more", "EOF")).with("log.txt", "first\n").shows("log.txt", "first\nmore\n"),
	sc("echo b >> f").with("f", "a").shows("f", "ab\n"),
	sc("echo b >> new.txt").shows("new.txt", "b\n"),
	sc(`printf '%s\n' x y >> f`).with("f", "a\n").shows("f", "a\nx\ny\n"),
	// tee fed by a here-document.
	sc(lines("tee notes.md <<'EOF'", "# Notes", "EOF")).with("notes.md", "old\n").shows("notes.md", "# Notes\n"),
	sc(lines("tee -a notes.md > /dev/null <<'EOF'", "more", "EOF")).with("notes.md", "old\n").shows("notes.md", "old\nmore\n"),
	sc(lines("tee a b <<EOF", "x", "EOF")).shows("a", "x\n", "b", "x\n"),
	sc(lines("tee -- a <<EOF", "x", "EOF")).shows("a", "x\n"),
	sc("echo x | tee f").stops("pipeline"),
	sc("tee f > g <<EOF\nx\nEOF\n").stops("only a here-document and >/dev/null"),
	sc("tee f f <<EOF\nx\nEOF\n").stops("same file twice"),
	sc("tee -i f <<EOF\nx\nEOF\n").stops("looks like an option"),
	sc("tee f").stops("no here-document"),
	// sed -i: GNU sed's output on the file's text.
	sc("sed -i 's/a/b/' f").with("f", "a a\nxa\n").shows("f", "b a\nxb\n"),
	sc("sed -i 's/a/b/g' f").with("f", "a a\n").shows("f", "b b\n"),
	sc("sed -i '2d' f").with("f", "1\n2\n3\n").shows("f", "1\n3\n"),
	sc("sed -i '/two/a inserted' f").with("f", "one\ntwo\nthree\n").shows("f", "one\ntwo\ninserted\nthree\n"),
	sc("sed -i '2,3s/^/# /' f").with("f", "a\nb\nc\nd\n").shows("f", "a\n# b\n# c\nd\n"),
	sc("sed -i -e 's/a/b/' -e 's/c/d/' f g").with("f", "ac\n", "g", "ca\n").shows("f", "bd\n", "g", "db\n"),
	sc("sed -i -E 's/(ab)+/X/' f").with("f", "ababc\n").shows("f", "Xc\n"),
	sc("sed -ri 's/x+/y/' f").with("f", "xxx\n").shows("f", "y\n"),
	sc("sed -ni '2p' f").with("f", "1\n2\n3\n").shows("f", "2\n"),
	sc("sed -i -- 's/a/b/' f").with("f", "a\n").shows("f", "b\n"),
	sc("sed -i -es/a/b/ f").with("f", "a\n").shows("f", "b\n"),
	sc("sed -i '$a last' f").with("f", "no newline").shows("f", "no newline\nlast\n"),
	sc("sed -i 's/a/b/' f").with("f", "no newline a").shows("f", "no newline b"),
	sc("echo a > f; echo b >> f; sed -i s/a/c/ f").shows("f", "c\nb\n"),
	sc("touch f; sed -i '1i hello' f").shows("f", ""),
	sc("sed -i.bak s/a/b/ f").with("f", "a\n").stops("backup suffix"),
	sc("sed -ie s/a/b/ f").with("f", "a\n").stops(`backup suffix "e"`),
	sc("sed -i -z s/a/b/ f").with("f", "a\n").stops("option -z"),
	sc("sed -i --posix s/a/b/ f").with("f", "a\n").stops(`option "--posix"`),
	sc("sed -i -f script.sed f").with("f", "a\n").stops("option -f"),
	sc("sed s/a/b/ f").with("f", "a\n").stops("not -i"),
	sc("sed -i s/a/b/ f -n").with("f", "a\n").stops("looks like an option"),
	sc("sed -i s/a/b/").stops("no file"),
	sc("sed -i 's/a/b/w out' f").with("f", "a\n").stops("sed"),
	sc("sed -i '1e date' f").with("f", "a\n").stops("sed"),
	sc("sed -i 'r /etc/passwd' f").with("f", "a\n").stops("sed"),
	sc("sed -i 's/./X/' f").with("f", "é\n").stops("differently"),
	sc("sed -i F f").with("f", "a\n").stops("differently"),
	sc("sed -i 'N;s/\\n/ /' f").with("f", "1\n2\n3\n").stops("differently"),
	sc("sed -i '$!N;s/\\n/ /' f").with("f", "1\n2\n3\n").shows("f", "1 2\n3\n"),
	sc("sed -i 's/a/b/' missing").stops("no such file"),
	sc("sed -i 'h;:a;G;h;ba' f").with("f", "a\n").stops("sed").notRun(),
	// A sed that never ends meets the bound on the work of the whole script: none of it is shown.
	sc("sed -i ':a;ba' f").with("f", "a\n").stops("costs more than its bound").notRun(),
	sc("sed -i ':a;p;ba' f").with("f", "a\n").stops("more than").notRun(),
	sc("sed -i 'bad' f").with("f", "a\n").stops("sed"),
	sc("sed -i 's/a/\\x00/' f").with("f", "a\n").stops("not UTF-8"),
	sc("sed -i 'q5' f").with("f", "a\n").stops("exit status 5"),
	sc("sed -i 'x;$G' f g").with("f", "1\n2\n", "g", "3\n").shows("f", "\n1\n2\n", "g", "\n3\n"),
	sc("sed -i 2q f g").with("f", "1\n2\n3\n", "g", "4\n5\n6\n").stops("carries state"),
	sc("sed -i 2q f").with("f", "1\n2\n3\n").shows("f", "1\n2\n"),
	sc("sed -i s/a/b/ f f").with("f", "a\n").stops("same file twice"),
	sc("sed -i s/a/b/ f 2>/dev/null").with("f", "a\n").stops("redirect"),
	// mkdir -p before a write into the directory; touch.
	sc(lines("mkdir -p src/pkg && cat > src/pkg/m.go <<'EOF'", "package m", "EOF")).shows("src/pkg/m.go", "package m\n"),
	sc("mkdir -p d/e && echo x >> d/e/f").shows("d/e/f", "x\n"),
	sc("mkdir -p d/ && echo x > d/f").with("d/").shows("d/f", "x\n"),
	sc("mkdir -p a b && echo x > a/f && echo y > b/g").shows("a/f", "x\n", "b/g", "y\n"),
	sc("mkdir -p d").shows(),
	sc("mkdir -p d && cd d && echo x > f").stops("cd"),
	sc("echo x > d; mkdir -p d/e").shows("d", "x\n").stops("a file the script writes"),
	sc("mkdir -p d; echo x > d").shows().stops("a directory mkdir creates"),
	sc("mkdir -p f/g").with("f", "file\n").stops("not a directory"),
	sc("mkdir d && echo x > d/f").shows("d/f", "x\n"),
	sc("mkdir a a/b && echo x > a/b/f").shows("a/b/f", "x\n"),
	sc("mkdir d && echo x > d/f").with("d/").stops("the directory exists"),
	sc("mkdir -p d; mkdir d").stops("made the directory already"),
	sc("mkdir a/b").stops("no parent directory"),
	sc("mkdir -m 700 d").stops("looks like an option"),
	sc("mkdir -p ../d").stops("'..'"),
	sc("mkdir -p /etc/shellwrite-test && echo x > /etc/shellwrite-test/f").stops("outside"),
	sc("touch new.txt").shows("new.txt", ""),
	sc("touch old.txt").with("old.txt", "keep\n").shows(),
	sc("touch a b").with("b", "keep\n").shows("a", ""),
	sc("touch a && echo x > a").shows("a", "x\n"),
	sc("echo x > a && touch a").shows("a", "x\n"),
	sc("touch -d now a").stops("looks like an option"),
	// cd: every later write lands below it.
	sc("cd sub && echo x > f; cd .. ; echo y > g").with("sub/").shows("sub/f", "x\n", "g", "y\n"),
	sc("cd sub; echo x > f").with("sub/").shows("sub/f", "x\n"),
	sc("cd sub\ncd deeper\necho x > f").with("sub/deeper/").shows("sub/deeper/f", "x\n"),
	sc("cd nosuch; echo x > f").stops("cd"),
	sc("cd ..; echo x > f").stops("climbs above"),
	// What stops the reading.
	sc("ls; echo x > f").stops(`"ls"`),
	sc("if true; then echo x > f; fi").stops("IfClause"),
	sc("for i in 1; do echo x > f; done").stops("ForClause"),
	sc("f() { echo x > g; }; f").stops("FuncDecl"),
	sc("(echo x > f)").stops("Subshell"),
	sc("{ echo x > f; }").stops("Block"),
	sc("echo x > f &").stops("background"),
	sc("! echo x > f").stops("negated"),
	sc("X=1; echo x > f").stops("assignment"),
	sc("echo $(date) > f; echo y > g").stops("CmdSubst"),
	sc("echo a > f && echo b > /etc/passwd-shellwrite && echo c > g").shows("f", "a\n").stops("outside"),
	sc("cat <<EOF > a; cat <<EOF > b\n1\nEOF\n2\nEOF\n").stops("<<"),
	sc("cat <<EOF > f && echo \"a\nb\"\nx\nEOF\n").stops("newline inside quotes"),
	// The rules of Parse hold for every statement.
	sc("echo x 1>> f").with("f", "a\n").shows("f", "a\nx\n"),
	sc("echo x > a/../f").with("a/").shows("f", "x\n"),
	sc("cd sub &&\n# then\necho x > f").with("sub/").shows("sub/f", "x\n"),
	sc(lines("cat <<'EOF' > s.sh", "#!/bin/sh", "# not a comment: the body", "EOF")).shows("s.sh", "#!/bin/sh\n# not a comment: the body\n"),
	sc("echo a > f; echo x > \u200bg").shows("f", "a\n").stops("U+200B"),
	sc("echo a > f; echo -n x >> g").shows("f", "a\n").stops("starts with '-'"),
	sc("echo a > f; printf '\\x41' >> g").shows("f", "a\n").stops(`escape \x`),
	sc("echo a > f; echo b > /dev/null").shows("f", "a\n").stops("under /dev"),
	sc("echo a > f; echo b >& 2").shows("f", "a\n").stops("redirect >&"),
	sc("echo a > f; cat <<EOF >> g\n$HOME\nEOF\n").shows("f", "a\n").stops("expansion"),
	sc("echo a > f\ncd -\necho b > g").shows("f", "a\n").stops("option"),
	sc("echo a > f; \\cat <<EOF > g\nx\nEOF\n").shows("f", "a\n").stops(`"\\cat" is not known`),
	// Scripts that do not parse alike in bash, POSIX sh and zsh are unknown as a whole.
	sc("echo x > f\na=(1 2)").refuses("parse as posix"),
	sc("echo x > f; echo 'unterminated").refuses("parse"),
	sc("echo hi\r > f").refuses("carriage return"),
}

// setUp returns a new directory holding c's files.
func (c scriptCase) setUp(tb testing.TB) string {
	tb.Helper()
	dir := shellDir(tb)
	for i := 0; i < len(c.files); i++ {
		path := filepath.Join(dir, c.files[i])
		if strings.HasSuffix(c.files[i], "/") {
			path += "/"
		}
		require.NoError(tb, os.MkdirAll(filepath.Dir(path), 0o755))
		if strings.HasSuffix(c.files[i], "/") {
			continue
		}
		i++
		require.NoError(tb, os.WriteFile(path, []byte(c.files[i]), 0o644))
	}
	return dir
}

// scriptEdits parses and computes c's script in dir, failing tb on an unexpected refusal.
func scriptEdits(tb testing.TB, script, dir string) ([]FileEdit, error, error) {
	tb.Helper()
	s, err := ParseScript(script, dir)
	if err != nil {
		return nil, nil, err
	}
	files, cut := s.Edits(dir, false, 1<<20)
	return files, cut, nil
}

func TestScript(t *testing.T) {
	for _, tc := range scriptCases {
		t.Run(tc.script, func(t *testing.T) {
			dir := tc.setUp(t)
			files, cut, err := scriptEdits(t, tc.script, dir)
			if tc.refused != "" {
				require.ErrorContains(t, err, tc.refused, "ParseScript error")
				return
			}
			require.NoError(t, err, "ParseScript")
			got, want := describeEdits(dir, files), describePairs(tc.want)
			assert.Equal(t, want, got, "shown:\n%swant:\n%s", got, want)
			if tc.stop == "" {
				assert.NoError(t, cut, "a cut, want everything shown")
			} else {
				assert.ErrorContains(t, cut, tc.stop, "cut")
			}
		})
	}
}

func describeEdits(dir string, files []FileEdit) string {
	var b strings.Builder
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		b.WriteString("  " + rel + ": " + strconvQuote(f.New) + "\n")
	}
	return b.String()
}

func describePairs(pairs []string) string {
	var b strings.Builder
	for i := 0; i < len(pairs); i += 2 {
		b.WriteString("  " + pairs[i] + ": " + strconvQuote([]byte(pairs[i+1])) + "\n")
	}
	return b.String()
}

func strconvQuote(b []byte) string { return strconv.Quote(string(b)) }

// TestScriptAgainstShells runs every row in bash, dash and zsh, each in a fresh directory holding
// the row's files: every file shown must hold its new text afterwards (the rows' unknown commands
// leave the shown files alone), and when everything is shown, no other file may have changed.
func TestScriptAgainstShells(t *testing.T) {
	for _, tc := range scriptCases {
		if tc.refused != "" || tc.noShell || strings.Contains(tc.script, "/etc") {
			continue
		}
		for _, shell := range oracleShells {
			t.Run(shell+"/"+tc.script, func(t *testing.T) {
				t.Parallel()
				checkScriptInShell(t, shell, "-c", tc)
			})
		}
	}
}

// TestScriptInLoginShells runs the rows as codex does, in `bash -lc` and `zsh -lc`, with this
// machine's system login files.
func TestScriptInLoginShells(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			for _, tc := range scriptCases {
				if tc.refused == "" && !tc.noShell && !strings.Contains(tc.script, "/etc") {
					checkScriptInShell(t, shell, "-lc", tc)
				}
			}
		})
	}
}

// checkScriptInShell runs tc's script in shell (flag -c or -lc) and compares the files with what
// Edits showed.
func checkScriptInShell(t *testing.T, shell, flag string, tc scriptCase) {
	sh := shellPath(t, shell)
	dir := tc.setUp(t)
	before := regularFiles(t, dir)
	files, cut, err := scriptEdits(t, tc.script, dir)
	require.NoError(t, err, "ParseScript")
	run := runShellFlag(t, sh, flag, tc.script, dir, "/usr/bin:/bin")
	after := regularFiles(t, dir)
	want := before
	for _, f := range files {
		got, ok := after[f.Path]
		if assert.True(t, ok, "%s -c %q (err %v, stderr %q) left %s as %q, shown %q", shell, tc.script, run.err, run.stderr, f.Path, got, f.New) {
			assert.Equal(t, string(f.New), string(got), "%s -c %q (err %v, stderr %q) left %s as %q, shown %q", shell, tc.script, run.err, run.stderr, f.Path, got, f.New)
		}
		want[f.Path] = f.New
	}
	if cut == nil {
		assert.True(t, sameFiles(after, want), "%s -c %q (err %v) wrote\n%sshown\n%s", shell, tc.script, run.err, describeFiles(after), describeFiles(want))
	}
}

// sed -i replaces a symlink with a file and leaves the file it pointed to alone: a sed through a
// symlink is not shown, whatever spelling of the file came first. Both scripts run in the shells.
func TestSedThroughASymlink(t *testing.T) {
	for script, want := range map[string]string{
		"echo a > t; sed -i s/a/b/ link": "a\n", // shown up to the sed: t as echo left it
		"echo a > link; sed -i s/a/b/ t": "b\n", // sed edits t, which link names
	} {
		for _, shell := range oracleShells {
			t.Run(shell+"/"+script, func(t *testing.T) {
				dir := shellDir(t)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "t"), []byte("x\n"), 0o644))
				require.NoError(t, os.Symlink("t", filepath.Join(dir, "link")))
				files, _, err := scriptEdits(t, script, dir)
				require.NoError(t, err)
				require.Len(t, files, 1, "shown %+v", files)
				require.Equal(t, want, string(files[0].New), "shown")
				runShell(t, shellPath(t, shell), script, dir)
				got, err := os.ReadFile(files[0].Path)
				require.NoError(t, err)
				require.Equal(t, want, string(got), "%s holds", files[0].Path)
			})
		}
	}
}

// A symlink inside the project writes another file than its name says: `echo x > docs/notes.md`
// with docs/notes.md -> ../src/config.py writes src/config.py. The diff names the file written
// (as a hard link is refused, a diff must never name one file and change another). Each row runs
// in the shells: the file shown is the one that changes, and it holds what was shown.
func TestAWriteThroughASymlinkNamesTheFileWritten(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		links        map[string]string // link -> target
		want         string            // the file shown, relative to the directory
	}{
		{"a file linked to another", "echo x > docs/notes.md", map[string]string{"docs/notes.md": "../src/config.py"}, "src/config.py"},
		{"an append through a link", "echo x >> docs/notes.md", map[string]string{"docs/notes.md": "../src/config.py"}, "src/config.py"},
		{"a directory linked to another", "echo x > d/config.py", map[string]string{"d": "src"}, "src/config.py"},
		{"a cd into a linked directory", "cd d && echo x > config.py", map[string]string{"d": "src"}, "src/config.py"},
		{"a new file in a linked directory", "echo x > d/new.py", map[string]string{"d": "src"}, "src/new.py"},
		{"mkdir -p in a linked directory", "mkdir -p d/sub && echo x > d/sub/new.py", map[string]string{"d": "src"}, "src/sub/new.py"},
		{"no link", "echo x > src/config.py", nil, "src/config.py"},
	} {
		for _, shell := range oracleShells {
			t.Run(shell+"/"+tc.name, func(t *testing.T) {
				dir := shellDir(t)
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "config.py"), []byte("a = 1\n"), 0o644))
				for link, target := range tc.links {
					require.NoError(t, os.Symlink(target, filepath.Join(dir, link)))
				}
				files, cut, err := scriptEdits(t, tc.script, dir)
				require.NoError(t, err)
				require.NoError(t, cut)
				require.Len(t, files, 1)
				assert.Equal(t, filepath.Join(dir, tc.want), files[0].Path, "the file the diff names")
				before := regularFiles(t, dir)
				runShell(t, shellPath(t, shell), tc.script, dir)
				after := regularFiles(t, dir)
				assert.Equal(t, string(files[0].New), string(after[files[0].Path]), "the file shown holds what was shown")
				for path, content := range after {
					if path != files[0].Path {
						assert.Equal(t, string(before[path]), string(content), "%s changed, but the diff names %s", path, files[0].Path)
					}
				}
			})
		}
	}
}
