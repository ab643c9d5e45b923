// Command extract regenerates testdata/shellcorpus/commands.jsonl from
// snapshots of the public repositories listed in sources.go: it reads every
// trajectory file at the pinned commit with git, takes the shell commands
// the agent ran, and keeps those that write a file (shellcorpus.Classify).
//
//	go run ./internal/shellcorpus/extract -mirror /path/to/mirrors -out testdata/shellcorpus/commands.jsonl
//
// A mirror is a git directory at MIRROR/OWNER+NAME/repo holding the pinned
// commit.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/shellcorpus"
)

func main() {
	mirror := flag.String("mirror", "/work/.mirror", "directory of git mirrors, one OWNER+NAME/repo each")
	out := flag.String("out", "testdata/shellcorpus/commands.jsonl", "the JSONL file to write")
	flag.Parse()
	if err := run(*mirror, *out); err != nil {
		log.Fatal(err)
	}
}

// tally counts what extraction met, per source.
type tally struct{ commands, unparsed, writes int }

func run(mirror, out string) error {
	var all []shellcorpus.Entry
	for _, src := range sources {
		entries, t, err := extract(mirror, src)
		if err != nil {
			return fmt.Errorf("%s: %w", src.id, err)
		}
		log.Printf("%s: %d shell commands, %d not parsed as bash, %d write files", src.id, t.commands, t.unparsed, t.writes)
		all = append(all, entries...)
	}
	return writeJSONL(out, dedupe(all))
}

// dedupe keeps the first of exact duplicate commands and counts them all.
func dedupe(all []shellcorpus.Entry) []shellcorpus.Entry {
	index := map[string]int{}
	var kept []shellcorpus.Entry
	for _, e := range all {
		if i, ok := index[e.Command]; ok {
			kept[i].Seen++
			continue
		}
		e.Seen = 1
		index[e.Command] = len(kept)
		kept = append(kept, e)
	}
	return kept
}

func writeJSONL(path string, entries []shellcorpus.Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// extract reads one source's trajectories and returns its writing commands.
func extract(mirror string, src source) ([]shellcorpus.Entry, tally, error) {
	gitDir := filepath.Join(mirror, strings.ReplaceAll(src.repo, "/", "+"), "repo")
	files, err := listFiles(gitDir, src)
	if err != nil {
		return nil, tally{}, err
	}
	var t tally
	var entries []shellcorpus.Entry
	for _, path := range files {
		data, err := gitShow(gitDir, src.commit, path)
		if err != nil {
			return nil, t, err
		}
		calls, err := src.read(data)
		if err != nil {
			return nil, t, fmt.Errorf("%s: %w", path, err)
		}
		for _, c := range calls {
			t.commands++
			form, err := shellcorpus.Classify(c.command)
			if err != nil {
				t.unparsed++
				continue
			}
			if form == shellcorpus.FormNone {
				continue
			}
			t.writes++
			entries = append(entries, shellcorpus.Entry{Command: c.command, Source: src.id, File: path, Cwd: c.cwd})
		}
	}
	return entries, t, nil
}

func listFiles(gitDir string, src source) ([]string, error) {
	out, err := exec.Command("git", "--git-dir", gitDir, "ls-tree", "-r", "--name-only", src.commit, "--", src.under).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	var files []string
	for _, p := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasSuffix(p, src.suffix) {
			files = append(files, p)
		}
	}
	return files, nil
}

func gitShow(gitDir, commit, path string) ([]byte, error) {
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "blob", commit+":"+path)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file %s: %w", path, err)
	}
	return out, nil
}

// unquoteJSON decodes a JSON string held in a string (tool-call arguments).
func unquoteJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(v); err != nil && err != io.EOF {
		return fmt.Errorf("arguments %s: %w", strconv.Quote(truncate(s, 80)), err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
