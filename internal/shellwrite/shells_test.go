package shellwrite

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The second oracle: real shells. Every accepted script is run by bash, dash and zsh, which must
// write exactly the file Parse predicts. REQUIRE_SHELLS=1 turns a missing shell into a failure.

// oracleShells are the shells every accepted script is run in, and the ones REQUIRE_SHELLS=1
// requires: bash (codex on Linux), dash (sh on Debian and Ubuntu) and zsh (codex on macOS).
var oracleShells = []string{"bash", "dash", "zsh"}

// shellPath returns the absolute path of shell, or skips the test if it is missing.
func shellPath(tb testing.TB, shell string) string {
	tb.Helper()
	path, ok := findShell(shell)
	if !ok && os.Getenv("REQUIRE_SHELLS") == "1" {
		require.False(tb, slices.Contains(oracleShells, shell), "%s not found in /usr/bin or /bin, and REQUIRE_SHELLS=1", shell)
	}
	if !ok {
		tb.Skipf("%s not found in /usr/bin or /bin", shell)
	}
	return path
}

// findShell looks for shell where the test environment's PATH does.
func findShell(shell string) (string, bool) {
	for _, dir := range []string{"/usr/bin", "/bin"} {
		path := filepath.Join(dir, shell)
		if _, err := os.Stat(path); err == nil {
			return path, true
		}
	}
	return "", false
}

// shellRun is what one shell did with a script.
type shellRun struct {
	stdout, stderr string
	err            error
	files          map[string][]byte // regular files under the directory afterwards, by absolute path
}

// runShell runs `shell -c script` in dir with an environment holding only PATH and HOME=dir, and
// collects the regular files under dir afterwards.
func runShell(tb testing.TB, shellPath, script, dir string) shellRun {
	tb.Helper()
	return runShellPath(tb, shellPath, script, dir, "/usr/bin:/bin")
}

// runShellPath is runShell with the given PATH.
func runShellPath(tb testing.TB, shellPath, script, dir, path string) shellRun {
	tb.Helper()
	return runShellFlag(tb, shellPath, "-c", script, dir, path)
}

// runShellFlag is runShellPath with the flag before the script: -c, or -lc for a login shell.
func runShellFlag(tb testing.TB, shellPath, flag, script, dir, path string) shellRun {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shellPath, flag, script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + path, "HOME=" + dir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	run := shellRun{err: cmd.Run()}
	run.stdout, run.stderr = stdout.String(), stderr.String()
	run.files = regularFiles(tb, dir)
	return run
}

// regularFiles returns the content of every regular file under dir.
func regularFiles(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		files[path], err = os.ReadFile(path)
		return err
	})
	require.NoError(tb, err, "walk %s", dir)
	return files
}

// shellDir returns a new, empty, symlink-free directory for one shell run. Its name is plain: the
// name of t.TempDir holds the test's name, which holds shell syntax.
func shellDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "shellwrite")
	require.NoError(tb, err)
	tb.Cleanup(func() {
		assert.NoError(tb, os.RemoveAll(dir))
	})
	dir, err = filepath.EvalSymlinks(dir)
	require.NoError(tb, err)
	return dir
}

// program gives, for a working directory, the script a shell runs and the Write it must produce
// (or Parse's error).
type program func(cwd string) (script string, want Write, err error)

// parsed is the program of a script that Parse reads as the shell does.
func parsed(scriptIn func(cwd string) string) program {
	return func(cwd string) (string, Write, error) {
		script := scriptIn(cwd)
		w, err := Parse(script, cwd)
		return script, w, err
	}
}

// checkShellWrites runs prog in shell in a fresh directory and requires that the shell succeeded
// quietly and wrote exactly the predicted file. dirs are created first, relative to it.
func checkShellWrites(tb testing.TB, shell string, prog program, dirs ...string) {
	tb.Helper()
	path := shellPath(tb, shell)
	cwd := shellDir(tb)
	script, w, err := prog(cwd)
	require.NoError(tb, err, "rejected in %s", cwd)
	require.True(tb, strings.HasPrefix(w.Path, cwd+"/"), "Path %s is outside the test directory %s", w.Path, cwd)
	for _, d := range append(dirs, strings.TrimPrefix(filepath.Dir(w.Path), cwd)) {
		require.NoError(tb, os.MkdirAll(filepath.Join(cwd, d), 0o755))
	}
	run := runShell(tb, path, script, cwd)
	require.NoError(tb, run.err, "%s -c %q: stdout=%q stderr=%q", shell, script, run.stdout, run.stderr)
	require.Empty(tb, run.stdout, "%s -c %q: stderr=%q", shell, script, run.stderr)
	require.Empty(tb, run.stderr, "%s -c %q", shell, script)
	want := map[string][]byte{w.Path: w.Content}
	require.True(tb, sameFiles(run.files, want), "%s -c %q wrote\n%sParse says\n%s", shell, script, describeFiles(run.files), describeFiles(want))
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for path, content := range a {
		other, ok := b[path]
		if !ok || !bytes.Equal(content, other) {
			return false
		}
	}
	return true
}

func describeFiles(files map[string][]byte) string {
	var b strings.Builder
	for path, content := range files {
		b.WriteString("  " + path + ": " + strconv.Quote(string(content)) + "\n")
	}
	if len(files) == 0 {
		b.WriteString("  (no files)\n")
	}
	return b.String()
}
