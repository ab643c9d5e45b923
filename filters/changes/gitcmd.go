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
	"strconv"
	"strings"
	"time"
)

// literal has git read pathspecs as paths, never as patterns.
const literal = "GIT_LITERAL_PATHSPECS=1"

// gitTimeout bounds each git command a scan runs.
const gitTimeout = 30 * time.Second

// gitEnv is the environment git runs in: no optional locks (status must
// not rewrite the user's index while an agent's git may be running), the C
// locale, and none of the variables that would
// point git at another repository.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OPTIONAL_LOCKS", "LC_ALL", "GIT_LITERAL_PATHSPECS":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), extra...)
}

// git runs git in dir with args and returns its output.
func git(dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.quotePath=false"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
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
func gitStatus(dir, prefix string) (map[string]statusEntry, error) {
	out, err := git(dir, gitEnv(literal), nil, "status", "--porcelain=v2", "-z", "--untracked-files=all",
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
		if ok && !skipped(rel) {
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
func lsFiles(dir, prefix, indexFile string, only []string, keep func(rel string) bool) (map[string]indexEntry, error) {
	env := []string{literal}
	if indexFile != "" {
		env = append(env, "GIT_INDEX_FILE="+indexFile)
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	args := []string{"ls-files", "-s", "-z", "--full-name", "--"}
	if only == nil {
		only = []string{"."}
	}
	cmd := exec.CommandContext(ctx, "git", append(args, only...)...)
	cmd.Dir, cmd.Env = dir, gitEnv(env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	entries := map[string]indexEntry{}
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		rec, err := br.ReadBytes(0)
		if err != nil {
			break
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
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	return entries, nil
}

// catBlobs reads the blobs oids of at most max bytes each from the
// repository at dir (maxBytes each); a larger blob's size is returned without its content.
func catBlobs(dir string, oids []string, maxBytes int64) (content map[string][]byte, size map[string]int64, err error) {
	content, size = map[string][]byte{}, map[string]int64{}
	if len(oids) == 0 {
		return content, size, nil
	}
	list := strings.Join(oids, "\n") + "\n"
	out, err := git(dir, gitEnv(), strings.NewReader(list), "cat-file", "--batch-check")
	if err != nil {
		return nil, nil, err
	}
	var small []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line) // "<oid> blob <size>"
		if len(f) != 3 {
			continue
		}
		n, _ := strconv.ParseInt(f[2], 10, 64)
		size[f[0]] = n
		if n <= maxBytes {
			small = append(small, f[0])
		}
	}
	if len(small) == 0 {
		return content, size, nil
	}
	out, err = git(dir, gitEnv(), strings.NewReader(strings.Join(small, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, nil, err
	}
	for len(out) > 0 {
		nl := bytes.IndexByte(out, '\n')
		f := strings.Fields(string(out[:max(nl, 0)]))
		if nl < 0 || len(f) != 3 {
			break
		}
		n, _ := strconv.Atoi(f[2])
		if nl+1+n > len(out) {
			break
		}
		content[f[0]] = out[nl+1 : nl+1+n]
		out = out[min(nl+2+n, len(out)):]
	}
	return content, size, nil
}

// checkIgnore returns which of paths (relative to root, slash-separated)
// the .gitignore files under root hide, asked of git with an empty
// repository of its own (check-ignore needs one), so that a directory
// outside git honours its .gitignore as git would.
func checkIgnore(root string, paths []string) ([]string, error) {
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
	in := strings.Join(paths, "\x00") + "\x00"
	out, err := git(root, gitEnv("GIT_DIR="+empty, "GIT_WORK_TREE="+root), strings.NewReader(in),
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
