package changes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// literal has git read pathspecs as paths, never as patterns.
const literal = "GIT_LITERAL_PATHSPECS=1"

// gitTimeout bounds each git command a scan runs, and gitWaitDelay how
// long its output is awaited past that, or past git's exit: a process git
// started (a hook, a filter) may hold its pipes open after git is killed.
var (
	gitTimeout   = 30 * time.Second
	gitWaitDelay = 2 * time.Second
)

// gitConfig is the configuration every git command runs with: paths said
// as they are, and none of the repository's own configuration that runs
// a program of its choosing when status looks at the work tree (the
// fsmonitor hook). The directory is the agent's, not the user's: what its
// .git/config says is not run by the proxy.
var gitConfig = []string{"-c", "core.quotePath=false", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false"}

// gitEnv is the environment git runs in: no optional locks (status must
// not rewrite the user's index while an agent's git may be running), the C
// locale, and none of the variables that would point git at another
// repository or object store.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OPTIONAL_LOCKS", "LC_ALL", "GIT_LITERAL_PATHSPECS",
			"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), extra...)
}

// gitCommand is git with args in dir, bound by gitTimeout and gitWaitDelay;
// cancel releases its context once it has run.
func gitCommand(ctx context.Context, dir string, env []string, args ...string) (cmd *exec.Cmd, cancel context.CancelFunc) {
	ctx, cancel = context.WithTimeout(ctx, gitTimeout)
	cmd = exec.CommandContext(ctx, "git", append(slices.Clone(gitConfig), args...)...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, gitWaitDelay
	return cmd, cancel
}

// git runs git in dir with args and returns its output.
func git(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) (out []byte, err error) {
	err = gitStream(ctx, dir, env, stdin, func(r *bufio.Reader) (rerr error) {
		out, rerr = io.ReadAll(r)
		return rerr
	}, args...)
	return out, err
}

// gitStream runs git in dir with args, handing its output to read as it
// comes; the rest of it is discarded once read returns.
func gitStream(ctx context.Context, dir string, env []string, stdin io.Reader, read func(*bufio.Reader) error, args ...string) error {
	cmd, cancel := gitCommand(ctx, dir, env, args...)
	defer cancel()
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git %s: %w", args[0], err)
	}
	rerr := read(bufio.NewReaderSize(stdout, 64<<10))
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return rerr
}

// statusEntry is one path git status lists: its two status letters (X the
// index against HEAD, Y the work tree against the index; "??" untracked).
type statusEntry struct{ x, y byte }

// worktreeDirty reports whether the file in the work tree may differ from
// the index: its text must be copied, git's objects do not hold it. The
// zero entry is a path status did not list.
func (e statusEntry) worktreeDirty() bool { return e.y != '.' && e.y != 0 }

// gitStatus lists the paths under dir (relative to dir, slash-separated)
// that differ from the index or HEAD, or are untracked and not ignored.
// prefix is dir relative to the work tree's top, as git names paths.
func gitStatus(ctx context.Context, dir, prefix string) (map[string]statusEntry, error) {
	out, err := git(ctx, dir, gitEnv(literal), nil, "status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--no-renames", "--ignore-submodules=all", "--", ".")
	if err != nil {
		return nil, err
	}
	entries := map[string]statusEntry{}
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		var e statusEntry
		var path string
		switch {
		case len(rec) > 2 && rec[0] == '?':
			e, path = statusEntry{'?', '?'}, string(rec[2:])
		case len(rec) > 4 && (rec[0] == '1' || rec[0] == 'u'):
			fields := bytes.SplitN(rec, []byte{' '}, map[byte]int{'1': 9, 'u': 11}[rec[0]])
			e, path = statusEntry{rec[2], rec[3]}, string(fields[len(fields)-1])
			if rec[0] == 'u' {
				e.y = 'U'
			}
		default:
			continue
		}
		rel, ok := strings.CutPrefix(path, prefix)
		if ok && !skipped(rel, e.x == '?') {
			entries[rel] = e
		}
	}
	return entries, nil
}

// indexEntry is a file's entry in git's index: its mode and blob.
type indexEntry struct {
	mode string // 100644, 100755, 120000 (a symlink)
	oid  string
}

// lsFiles reads the stage-0 entries under dir of the index at indexFile
// ("" the repository's own) whose path keep accepts, streaming git's
// output, so that memory holds only those kept. only, when not nil, names
// the paths (relative to dir) git is to list, so it lists no others.
func lsFiles(ctx context.Context, dir, prefix, indexFile string, only []string, keep func(rel string) bool) (map[string]indexEntry, error) {
	env := []string{literal}
	if indexFile != "" {
		env = append(env, "GIT_INDEX_FILE="+indexFile)
	}
	args := []string{"ls-files", "-s", "-z", "--full-name", "--"}
	if only == nil {
		only = []string{"."}
	}
	entries := map[string]indexEntry{}
	err := gitStream(ctx, dir, gitEnv(env...), nil, func(br *bufio.Reader) error {
		for {
			rec, err := br.ReadBytes(0)
			if err != nil {
				return nil
			}
			// "<mode> <oid> <stage>\t<path>\0"
			tab := bytes.IndexByte(rec, '\t')
			fields := bytes.Fields(rec[:max(tab, 0)])
			if tab < 0 || len(fields) != 3 || string(fields[2]) != "0" {
				continue
			}
			rel, ok := strings.CutPrefix(string(rec[tab+1:len(rec)-1]), prefix)
			if ok && keep(rel) {
				entries[rel] = indexEntry{mode: string(fields[0]), oid: string(fields[1])}
			}
		}
	}, append(args, only...)...)
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// blobs are blobs read from a repository: the content of those of at most
// the size asked, the size of every one found, which were missing (a
// shallow or partial clone, a damaged repository) and which were left out,
// past the budget.
type blobs struct {
	content map[string][]byte
	size    map[string]int64
	missing map[string]bool
	leftOut map[string]bool
}

// catBlobs reads the blobs oids from the repository at dir, the content of
// those of at most maxBytes each while budget bytes last, streaming git's
// output: a larger blob's size is known without its content.
func catBlobs(ctx context.Context, dir string, oids []string, maxBytes, budget int64) (blobs, error) {
	b := blobs{content: map[string][]byte{}, size: map[string]int64{}, missing: map[string]bool{}, leftOut: map[string]bool{}}
	slices.Sort(oids)
	oids = slices.Compact(oids) // two files of the same text are one blob
	if len(oids) == 0 {
		return b, nil
	}
	out, err := git(ctx, dir, gitEnv(), strings.NewReader(strings.Join(oids, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return b, err
	}
	var small []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line) // "<oid> blob <size>", or "<oid> missing"
		switch {
		case len(f) == 2 && f[1] == "missing":
			b.missing[f[0]] = true
		case len(f) == 3:
			n, _ := strconv.ParseInt(f[2], 10, 64)
			b.size[f[0]] = n
			switch {
			case n > maxBytes:
			case n > budget:
				b.leftOut[f[0]] = true
			default:
				small = append(small, f[0])
				budget -= n
			}
		}
	}
	if len(small) == 0 {
		return b, nil
	}
	err = gitStream(ctx, dir, gitEnv(), strings.NewReader(strings.Join(small, "\n")+"\n"), func(out *bufio.Reader) error {
		return readBatch(out, func(oid string, content []byte) { b.content[oid] = content })
	}, "cat-file", "--batch")
	return b, err
}

// readBatch reads git cat-file --batch's output: a header, the content and
// a newline per object; a missing object has a header only.
func readBatch(out *bufio.Reader, got func(oid string, content []byte)) error {
	for {
		header, err := out.ReadString('\n')
		if err == io.EOF && header == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			continue // "<oid> missing": gone since the check
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("git cat-file: a header that is not one: %q", header)
		}
		content := make([]byte, n+1)
		if _, err := io.ReadFull(out, content); err != nil {
			return fmt.Errorf("git cat-file: %w", err)
		}
		got(f[0], content[:n])
	}
}

// checkIgnore returns which of paths (relative to root, slash-separated)
// git would ignore: the .gitignore files under root, and the user's own
// excludes (core.excludesFile, by default ~/.config/git/ignore), asked of
// git with an empty repository of its own (check-ignore needs one), so
// that a directory outside git keeps private what git would.
func checkIgnore(ctx context.Context, root string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	return checkIgnoreOf(ctx, root, strings.NewReader(strings.Join(paths, "\x00")+"\x00"))
}

// checkIgnoreOf is checkIgnore of the paths read from in, each ended by a
// NUL byte.
func checkIgnoreOf(ctx context.Context, root string, in io.Reader) ([]string, error) {
	empty, err := os.MkdirTemp("", "acp-proxy-ignore-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(empty)
	for _, d := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(empty, d), 0o700); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(empty, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
		return nil, err
	}
	out, err := git(ctx, root, gitEnv("GIT_DIR="+empty, "GIT_WORK_TREE="+root), in,
		"check-ignore", "--no-index", "-z", "--stdin")
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: nothing ignored
		return nil, err
	}
	var ignored []string
	for p := range strings.SplitSeq(string(out), "\x00") {
		if p != "" {
			ignored = append(ignored, p)
		}
	}
	return ignored, nil
}

// earlyCheck is a checkIgnore started before the paths to ask are all
// known: git starts (a process, its configuration read) while a report's
// scan goes on, and reads the paths, and the .gitignore files, once the
// scan is done.
type earlyCheck struct {
	in  *io.PipeWriter
	out chan checked
}

// checked is what a checkIgnore answered.
type checked struct {
	ignored []string
	err     error
}

// startCheckIgnore starts checkIgnore under root; ask gives it the paths.
func startCheckIgnore(ctx context.Context, root string) *earlyCheck {
	r, w := io.Pipe()
	c := &earlyCheck{in: w, out: make(chan checked, 1)}
	go func() {
		ignored, err := checkIgnoreOf(ctx, root, r)
		r.CloseWithError(io.ErrClosedPipe) // git did not start, or stopped reading: ask does not wait
		c.out <- checked{ignored, err}
	}()
	return c
}

// ask is which of paths git ignores.
func (c *earlyCheck) ask(paths []string) ([]string, error) {
	if len(paths) > 0 {
		_, _ = c.in.Write([]byte(strings.Join(paths, "\x00") + "\x00"))
	}
	c.in.Close()
	r := <-c.out
	return r.ignored, r.err
}
