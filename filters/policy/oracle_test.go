package policy

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAllowedCommandsInBash: real bash is the oracle. Commands are generated around fuzzPolicy;
// each the policy allows runs in bash, in a session directory beside another directory (out
// links to it) and a home directory, with every program a stub that logs its words. What ran must be
// what the allow rules name, and nothing may be written outside the session's directory.
// Without root the commands run as the user; as root they run as nobody, so that a wrong allow
// cannot touch the machine. ORACLE_RUNS and ORACLE_SEED run more, or other, commands.
func TestAllowedCommandsInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	p := mustParse(t, fuzzPolicy)
	r := rand.New(rand.NewPCG(5, 6))
	if seed, err := strconv.ParseUint(os.Getenv("ORACLE_SEED"), 10, 64); err == nil {
		r = rand.New(rand.NewPCG(seed, 6))
	}
	ran := 0
	o := newOracle(t, bash)
	for range oracleRuns() {
		src, _ := generate(r, 0)
		if p.Decide(Call{Tool: Bash, Cwd: o.cwd, Script: src}).Action != Allow {
			continue
		}
		ran++
		o.reset(t)
		o.run(t, src)
	}
	require.Greater(t, ran, 100, "allowed commands run")
	t.Logf("%d allowed commands run in bash", ran)
}

// oracleRuns is how many commands are generated: ORACLE_RUNS, or 1,500.
func oracleRuns() int {
	if n, err := strconv.Atoi(os.Getenv("ORACLE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 1500
}

// oracle is one run's directories: root holds project (the session's directory), elsewhere
// and the stubs.
type oracle struct {
	bash, root, cwd, elsewhere, home, bin, log string
}

// stubbed are the programs the generated commands name; each is a stub that logs its words.
var stubbed = []string{"npm", "ls", "git", "cat", "cp", "python3", "find", "xargs", "rm", "sudo", "id", "ln", "env"}

// writers are the stubbed programs that then run as the real ones, so that what they write is
// seen: the files they write, not only their words, are checked.
var writers = map[string]bool{"cp": true, "ln": true}

func newOracle(t *testing.T, bash string) oracle {
	t.Helper()
	root, err := os.MkdirTemp("", "policy-oracle")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	o := oracle{bash: bash, root: root, cwd: filepath.Join(root, "project"), elsewhere: filepath.Join(root, "elsewhere"),
		home: filepath.Join(root, "home"), bin: filepath.Join(root, "bin"), log: filepath.Join(root, "log")}
	for _, d := range []string{o.cwd, filepath.Join(o.cwd, "sub"), o.elsewhere, o.home, o.bin} {
		require.NoError(t, os.Mkdir(d, 0o777))
		require.NoError(t, os.Chmod(d, 0o777)) // past the umask: nobody writes here
	}
	require.NoError(t, os.Chmod(root, 0o755))
	require.NoError(t, os.Symlink(o.elsewhere, filepath.Join(o.cwd, "out")))
	require.NoError(t, os.WriteFile(o.log, nil, 0o666))
	require.NoError(t, os.Chmod(o.log, 0o666))
	// one write per line (O_APPEND): commands of a pipeline run at once
	stub := "#!/bin/sh\nsep=$(printf '\\037'); line=${0##*/}\nfor a in \"$@\"; do line=$line$sep$a; done\nprintf '%s\\n' \"$line\" >> \"$LOG\"\n"
	for _, prog := range stubbed {
		script := stub
		if real, err := exec.LookPath(prog); err == nil && writers[prog] {
			script += "exec " + real + " \"$@\"\n" // it writes as the real one would
		}
		require.NoError(t, os.WriteFile(filepath.Join(o.bin, prog), []byte(script), 0o755))
	}
	// the shells a command starts read no start-up files, as the policy does not (docs/policy.md:
	// login files can change what a name runs)
	for _, sh := range []string{"bash", "sh"} {
		real, err := exec.LookPath(sh)
		require.NoError(t, err)
		wrapper := "#!/bin/sh\nexec " + real + " --noprofile --norc \"$@\"\n"
		if sh == "sh" {
			wrapper = "#!/bin/sh\nexec " + real + " \"$@\"\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(o.bin, sh), []byte(wrapper), 0o755))
	}
	return o
}

// reset empties what a run may have written: the session's directory but sub and out, the
// directories beside it, the log.
func (o oracle) reset(t *testing.T) {
	t.Helper()
	for _, dir := range []string{o.cwd, o.elsewhere, o.home} {
		names, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range names {
			if dir != o.cwd || (e.Name() != "sub" && e.Name() != "out") {
				require.NoError(t, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
	}
	require.NoError(t, os.Truncate(o.log, 0))
	require.NoError(t, os.WriteFile(filepath.Join(o.cwd, "a.txt"), []byte("a\n"), 0o666))
}

// run runs src in bash and checks what it did.
func (o oracle) run(t *testing.T, src string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	argv := []string{o.bash, "-c", src}
	if os.Geteuid() == 0 {
		argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = o.cwd
	cmd.Env = []string{"PATH=" + o.bin, "LOG=" + o.log, "HOME=" + o.home}
	_ = cmd.Run() // the stubs' and the script's status are their own
	names, err := os.ReadDir(o.elsewhere)
	require.NoError(t, err)
	require.Empty(t, names, "allowed %q, which wrote outside the session's directory", src)
	top, err := os.ReadDir(o.root)
	require.NoError(t, err)
	require.Len(t, top, 5, "allowed %q, which wrote beside the session's directory", src)
	home, err := os.ReadDir(o.home)
	require.NoError(t, err)
	for _, e := range home {
		// a login shell's start-up files (bash -lc) may make dot-directories there
		require.True(t, strings.HasPrefix(e.Name(), "."), "allowed %q, which wrote %s in the home directory", src, e.Name())
	}
	logged, err := os.ReadFile(o.log)
	require.NoError(t, err)
	for _, line := range strings.Split(strings.TrimSuffix(string(logged), "\n"), "\n") {
		if line == "" {
			continue
		}
		argv := strings.Split(line, "\037")
		require.True(t, namedByFuzzPolicy(argv), "allowed %q, which ran %q", src, argv)
	}
}

// namedByFuzzPolicy is fuzzPolicy's allow rules, written out independently of the matcher:
// npm test, npm run test …, ls …, git status, cat …, echo …, cp … .
func namedByFuzzPolicy(argv []string) bool {
	switch {
	case slices.Equal(argv, []string{"npm", "test"}), slices.Equal(argv, []string{"git", "status"}):
		return true
	case len(argv) >= 3 && argv[0] == "npm" && argv[1] == "run" && argv[2] == "test":
		return true
	}
	return argv[0] == "ls" || argv[0] == "cat" || argv[0] == "echo" || argv[0] == "cp"
}
