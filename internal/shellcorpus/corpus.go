package shellcorpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Entry is one corpus line: a command a model sent to a shell, exactly as
// the trajectory recorded it.
type Entry struct {
	Command string `json:"command"`
	Source  string `json:"source"` // a source id of testdata/shellcorpus/SOURCES.md
	File    string `json:"file"`   // the trajectory file in the source's repository
	Cwd     string `json:"cwd"`    // the shell's directory when the command ran, as far as the trajectory tells
	Seen    int    `json:"seen"`   // how many times the exact command occurs in all sources
}

// Load reads a JSONL corpus.
func Load(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("shellcorpus: %w", err)
	}
	defer f.Close()
	var entries []Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("shellcorpus: %s:%d: %w", path, line, err)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("shellcorpus: %s: %w", path, err)
	}
	return entries, nil
}
