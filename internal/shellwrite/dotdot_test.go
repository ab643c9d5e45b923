package shellwrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stretchr/testify/require"
)

// dotdotTree builds, in dir: real/deep/, sub/deeper/, link -> real/deep (a symlinked directory),
// and afile (a regular file).
func dotdotTree(tb testing.TB, dir string) {
	tb.Helper()
	for _, d := range []string{"real/deep", "sub/deeper"} {
		require.NoError(tb, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(tb, os.Symlink("real/deep", filepath.Join(dir, "link")))
	require.NoError(tb, os.WriteFile(filepath.Join(dir, "afile"), []byte("a\n"), 0o644))
}

// dotdotCases are scripts with '..' and cd, run in dotdotTree. cd resolves '..' logically (link/..
// is the directory holding link), the kernel physically (link/../f is real/f).
var dotdotCases = []struct {
	script string
	path   string // accepted: where the file lands, relative to the tree
	reason string // rejected by Parse or CheckTarget: part of the error
}{
	{script: "echo hi > link/../f", path: "real/f"},
	{script: "echo hi > link/../../f", path: "f"},
	{script: "echo hi > real/deep/../f", path: "real/f"},
	{script: "printf 'clean\\n' > sub//./deeper/../clean.txt", path: "sub/clean.txt"},
	{script: "cd link/.. && echo hi > f", path: "f"},
	{script: "cd link/./.. && echo hi > f", path: "f"},
	{script: "cd link && echo hi > ../f", path: "real/f"},
	{script: "cd link && echo hi > f", path: "real/deep/f"}, // link/f: the diff names the file written
	{script: "cd real/deep/.. && echo hi > g", path: "real/g"},
	{script: "cd sub/deeper/../.. && echo hi > h", path: "h"},
	{script: "cd @CWD@/link/.. && echo hi > f", path: "f"},
	{script: "cd @CWD@/link/../real && echo hi > f", path: "real/f"},
	// Writes that cannot happen: cd fails in bash and zsh (dash's logical cd does not look).
	{script: "cd nosuch/.. && echo hi > f", reason: "cd:"},
	{script: "cd afile/.. && echo hi > f", reason: "not a directory"},
	{script: "cd nosuch && echo hi > @CWD@/f", reason: "cd:"},
	{script: "cd afile && echo hi > @CWD@/f", reason: "not a directory"},
	{script: "echo hi > nosuch/../f", reason: "directory"},
	{script: "echo hi > afile/../f", reason: "not a directory"},
	// Where the meaning depends on which path to the directory the shell's $PWD holds.
	{script: "cd link/../.. && echo hi > f", reason: "climbs above"},
}

// TestDotDotAgainstShells checks '..' and cd against the shells: every accepted script writes
// exactly the file CheckTarget names, in bash, dash and zsh, through symlinked directories too.
func TestDotDotAgainstShells(t *testing.T) {
	for _, tc := range dotdotCases {
		for _, shell := range oracleShells {
			t.Run(shell+"/"+tc.script, func(t *testing.T) {
				t.Parallel()
				sh := shellPath(t, shell)
				cwd := shellDir(t)
				dotdotTree(t, cwd)
				script := strings.ReplaceAll(tc.script, "@CWD@", cwd)
				before := regularFiles(t, cwd)
				w, err := Parse(script, cwd)
				var target Target
				if err == nil {
					target, err = CheckTarget(w, cwd, false, 1<<20)
				}
				if tc.reason != "" {
					require.ErrorContains(t, err, tc.reason)
					return
				}
				require.NoError(t, err, "rejected")
				want := filepath.Join(cwd, tc.path)
				assert.Equal(t, want, target.Path, "Path")
				run := runShell(t, sh, script, cwd)
				require.NoError(t, run.err, "%s -c %q: stderr=%q", shell, script, run.stderr)
				require.Empty(t, run.stderr, "%s -c %q", shell, script)
				dir, err := filepath.EvalSymlinks(filepath.Dir(target.Path))
				require.NoError(t, err)
				before[filepath.Join(dir, filepath.Base(target.Path))] = w.Content // the walk does not follow links
				require.True(t, sameFiles(run.files, before), "%s -c %q left\n%sCheckTarget says\n%s", shell, script, describeFiles(run.files), describeFiles(before))
			})
		}
	}
}

// A directory of a checked path swapped for a symlink is not followed when oldText is read.
func TestOldTextIsNotReadThroughASwappedSymlink(t *testing.T) {
	fsys := newTargetFS(t)
	fsys.mkdir(t, filepath.Join(fsys.root, "sub"))
	fsys.file(t, filepath.Join(fsys.root, "sub", "f"), "inside\n")
	fsys.file(t, filepath.Join(fsys.outside, "f"), "secret\n")
	require.NoError(t, os.Rename(filepath.Join(fsys.root, "sub"), filepath.Join(fsys.root, "old")))
	fsys.symlink(t, fsys.outside, filepath.Join(fsys.root, "sub"))
	_, err := readText(fsys.root, filepath.Join(fsys.root, "sub", "f"), 1024)
	require.Error(t, err, "read the file through a symlink")
	text, err := readText(fsys.root, filepath.Join(fsys.root, "old", "f"), 1024)
	require.NoError(t, err, "a plain path")
	assert.Equal(t, "inside\n", string(text))
}
