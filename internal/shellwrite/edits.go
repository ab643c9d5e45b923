package shellwrite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FileEdit is what a script's shown writes do to one file.
type FileEdit struct {
	Path   string // the file the shell opens, as Target.Path
	Old    []byte // its content before the script; nil when it did not exist
	Exists bool
	New    []byte // its content after the shown writes
}

// Edits computes, from the files' current content, each file's text after the script's Writes:
// one FileEdit per file, in the order the files are first written, from the text before the
// script to the text after it. A file written twice (by two spellings of its path, too) has one
// FileEdit; a file only touched, that exists, has none.
//
// Each file is checked as CheckTarget checks it, with root, allowOutside and maxBytes, and read
// once. A file inside a directory an earlier `mkdir -p` of the script creates is new. `sed -i`
// is computed by running GNU sed on the text the file holds at that point (see sedOutput); the
// file must exist and must not be a symlink (sed would replace the link with a file).
//
// cut is nil when the FileEdits are everything the script does to files. Otherwise it says why
// the rest cannot be shown: the script's Unknown, or a statement whose target fails the checks,
// whose sed fails or whose text is too large or not UTF-8; the FileEdits then hold the statements
// before it, which still surely run. The statements after them run too, and may change the same
// files again (`echo a > f; python3 edit.py`): New is the text the shown writes leave, and only a
// check of the file after the command ran can say whether it stayed so.
//
// The work is bounded by DefaultWork (see EditsWithin).
func (s Script) Edits(root string, allowOutside bool, maxBytes int64) (files []FileEdit, cut error) {
	return s.EditsWithin(root, allowOutside, maxBytes, DefaultWork)
}

// Work bounds what computing one script's edits may cost: the bytes read, copied and handed
// to sed, the sed processes started, and the time. A long script on a large file (4,000 `echo
// a >> f` on 2 MiB, or 400 `sed -i`) would otherwise cost statements × file size, on the one
// goroutine that relays the agent's messages to the client, for every session.
//
// Bytes and SedRuns decide what is shown: they are the same on every machine. Time is the net
// under them for a machine too slow for those: on a loaded one a few sed processes can take
// longer than a fast machine takes for all of them, and what a client is shown should not
// depend on what else the machine runs.
type Work struct {
	Time    time.Duration
	Bytes   int64
	SedRuns int // 0: no bound
}

// DefaultWork is the bound Edits applies: 64 MiB (a sed run in each of its environments on a
// few files of the 4 MiB --max-patch-bytes allows), 64 sed processes (about nine `sed -i`
// statements: each runs sed once in every environment sedEnvs gives), and 2 s.
var DefaultWork = Work{Time: 2 * time.Second, Bytes: 64 << 20, SedRuns: 64}

// ErrTooMuchWork is the cut of a script whose edits cost more than the Work allowed: none of
// it is shown (a partial result would depend on the machine's speed).
var ErrTooMuchWork = errors.New("shellwrite: reading the script costs more than its bound")

// EditsWithin is Edits bounded by work: past the bound it returns no FileEdit and a cut that
// is ErrTooMuchWork.
func (s Script) EditsWithin(root string, allowOutside bool, maxBytes int64, work Work) (files []FileEdit, cut error) {
	e := &editor{root: root, outside: allowOutside, max: maxBytes, index: map[string]int{}, made: map[string]string{},
		checked: map[string]checkedTarget{}, budget: &budget{deadline: time.Now().Add(work.Time), bytes: work.Bytes, runs: work.SedRuns, counted: work.SedRuns > 0}}
	for start := 0; start < len(s.Writes); {
		end := start + 1
		for end < len(s.Writes) && s.Writes[end].group == s.Writes[start].group {
			end++
		}
		next := e.clone()
		err := e.budget.spend(0)
		if err == nil {
			err = next.apply(s.Writes[start:end])
		}
		if errors.Is(err, ErrTooMuchWork) {
			return nil, fmt.Errorf("shellwrite: %s: %w", s.Writes[start].Path, err)
		}
		if err != nil {
			return e.result(), fmt.Errorf("shellwrite: %s: %w", s.Writes[start].Path, err)
		}
		e, start = next, end
	}
	return e.result(), s.Unknown
}

// budget is what is left of a Work while Edits runs.
type budget struct {
	deadline time.Time
	bytes    int64
	runs     int  // sed processes left, when counted
	counted  bool // whether runs bounds anything
}

// spendSed takes one sed process, and the bytes of its inputs, of the work, and reports
// ErrTooMuchWork when they are over.
func (b *budget) spendSed(inputs [][]byte) error {
	if b == nil {
		return nil
	}
	if b.counted {
		b.runs--
		if b.runs < 0 {
			return ErrTooMuchWork
		}
	}
	for _, in := range inputs {
		if err := b.spend(int64(len(in))); err != nil {
			return err
		}
	}
	return nil
}

// spend takes n bytes of work, and reports ErrTooMuchWork when the bytes or the time are over.
func (b *budget) spend(n int64) error {
	if b == nil {
		return nil
	}
	b.bytes -= n
	if b.bytes < 0 || !time.Now().Before(b.deadline) {
		return ErrTooMuchWork
	}
	return nil
}

// editor is the state of the files while Edits goes through the writes.
type editor struct {
	root    string
	outside bool
	max     int64
	files   []fileState
	index   map[string]int    // files by the symlink-free path the kernel writes
	made    map[string]string // directories mkdir -p creates: lexical path -> symlink-free path
	budget  *budget           // shared by every clone: the work is the whole script's
	// checked are the targets checked so far, by the Write's path and place, shared by every
	// clone (a check says what the disk holds, which the script's writes so far do not change).
	checked map[string]checkedTarget
}

// checkedTarget is a target as editor.target found it, without its text.
type checkedTarget struct {
	t   Target
	key string
}

// fileState is one file as the writes so far left it.
type fileState struct {
	edit    FileEdit
	key     string
	text    []byte
	exists  bool
	written bool
}

func (e *editor) clone() *editor {
	c := *e
	c.files = slices.Clone(e.files)
	c.index, c.made = maps.Clone(e.index), maps.Clone(e.made)
	return &c
}

func (e *editor) result() []FileEdit {
	var out []FileEdit
	for _, f := range e.files {
		if f.written {
			f.edit.New = f.text
			out = append(out, f.edit)
		}
	}
	return out
}

// apply does one statement's writes.
func (e *editor) apply(writes []Write) error {
	seen := map[int]bool{}
	var inputs, outputs [][]byte
	for _, w := range writes {
		if w.Op == MakeDirs || w.Op == MakeDir {
			if err := e.mkdir(w); err != nil {
				return err
			}
			continue
		}
		i, path, err := e.file(w)
		if err != nil {
			return err
		}
		if seen[i] {
			return errors.New("one command names the same file twice")
		}
		seen[i] = true
		f := &e.files[i]
		inputs = append(inputs, f.text)
		if err := e.do(w, f, path); err != nil {
			return err
		}
		outputs = append(outputs, f.text)
	}
	if len(writes) > 1 && writes[0].Op == EditInPlace {
		return sedSeparate(writes[0].sed, inputs, outputs, e.max, e.budget)
	}
	return nil
}

// do applies w, whose target is at path (as CheckTarget found it), to f.
func (e *editor) do(w Write, f *fileState, path string) error {
	if err := e.budget.spend(int64(len(w.Content))); err != nil {
		return err
	}
	// added is the text this write brings: the rest of f.text was checked when it came (the
	// file's old text when it was read), so a long run of appends checks each byte once.
	var added []byte
	switch w.Op {
	case Overwrite:
		// Clipped, so that an append copies it rather than write into the Write's spare capacity.
		f.text, added = slices.Clip(w.Content), w.Content
	case Append:
		// Not clipped: appends grow the text in place, amortised, instead of copying all of it
		// for each statement. An editor's clone shares the array, which is safe because Edits
		// keeps one of the two and an append writes only past the text either holds.
		f.text, added = append(f.text, w.Content...), w.Content
	case Touch:
		if f.exists {
			return nil
		}
		f.text = []byte{}
	case EditInPlace:
		if !f.exists {
			return errors.New("sed -i: no such file")
		}
		if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return errors.New("sed -i replaces a symlink with a file")
		}
		// sed -i writes a new file beside the old and renames it over: the directory must
		// take a new file.
		if err := checkWritable(filepath.Join(filepath.Dir(f.key), "sed-i"), false); err != nil {
			return fmt.Errorf("sed -i: %w", err)
		}
		out, err := sedOutput(w.sed, f.text, e.max, e.budget)
		if err != nil {
			return err
		}
		f.text, added = out, out
	}
	f.exists, f.written = true, true
	switch {
	case int64(len(f.text)) > e.max:
		return fmt.Errorf("new text larger than %d bytes", e.max)
	case !utf8.Valid(added) || bytes.IndexByte(added, 0) >= 0:
		// An append of a whole character sequence to valid text is valid text.
		return errors.New("new text is not UTF-8 text")
	}
	return nil
}

// file returns the index of w's file in e.files, checking and reading it the first time, and the
// path w names it by.
func (e *editor) file(w Write) (int, string, error) {
	t, key, err := e.target(w)
	if err != nil {
		return 0, "", err
	}
	opened := t.opened
	if opened == "" {
		opened = t.Path
	}
	if i, ok := e.index[key]; ok {
		return i, opened, nil
	}
	for _, d := range e.made {
		if d == key {
			return 0, "", errors.New("a directory mkdir creates")
		}
	}
	if t.Exists {
		// Read now, once: a file the script writes again is found in e.index above.
		read, err := CheckTarget(w, e.root, e.outside, e.max)
		if err != nil {
			return 0, "", err
		}
		if read.Path != t.Path || !read.Exists {
			return 0, "", errors.New("the file changed while it was read")
		}
		t = read
	}
	if err := e.budget.spend(int64(len(t.Old))); err != nil {
		return 0, "", err
	}
	e.files = append(e.files, fileState{
		edit: FileEdit{Path: t.Path, Old: t.Old, Exists: t.Exists}, key: key, text: slices.Clip(t.Old), exists: t.Exists,
	})
	e.index[key] = len(e.files) - 1
	return len(e.files) - 1, opened, nil
}

// target checks w's target and returns it with the symlink-free path the kernel writes.
func (e *editor) target(w Write) (_ Target, key string, err error) {
	parent := filepath.Dir(w.Path)
	if made, ok := e.made[parent]; ok && !w.place.dotdot && len(w.place.dirs) == 0 {
		if _, err := os.Lstat(parent); errors.Is(err, fs.ErrNotExist) {
			key := filepath.Join(made, filepath.Base(w.Path))
			path := w.Path
			if made != parent {
				path = belowRoot(key, e.root) // mkdir -p made it through a symlink: name the file written
			}
			return Target{Path: path, opened: w.Path}, key, e.checkInside(key)
		}
	}
	// One script is read at one moment: a target checked once (4,000 `echo a >> f`) is not
	// checked again, which costs a score of system calls.
	checkedKey := strings.Join(append([]string{w.Path, w.place.dir, w.place.target, strconv.FormatBool(w.place.dotdot)}, w.place.dirs...), "\x00")
	if c, ok := e.checked[checkedKey]; ok {
		return c.t, c.key, nil
	}
	t, err := checkTarget(w, e.root, e.outside, e.max, false)
	if err != nil {
		return Target{}, "", fmt.Errorf("shellwrite: target %s: %w", w.Path, err)
	}
	defer func() {
		if err == nil {
			e.checked[checkedKey] = checkedTarget{t, key}
		}
	}()
	key = t.Path
	if !t.Exists {
		key = filepath.Dir(key)
	}
	if key, err = filepath.EvalSymlinks(key); err != nil {
		return Target{}, "", err
	}
	if !t.Exists {
		key = filepath.Join(key, filepath.Base(t.Path))
	}
	return t, key, nil
}

func (e *editor) checkInside(path string) error {
	if isDev(path) {
		return fmt.Errorf("%s is under /dev", path)
	}
	if e.outside {
		return nil
	}
	_, err := checkInside(path, e.root)
	return err
}

// mkdir records the directories `mkdir -p` creates for w: the names of w's path below the
// deepest one that exists, which must be a directory (after symlinks, as mkdir follows them).
// Plain mkdir creates one: w's path must not exist, its parent must.
func (e *editor) mkdir(w Write) error {
	existing := w.Path
	var missing []string
	if w.Op == MakeDir {
		if _, err := os.Lstat(existing); !errors.Is(err, fs.ErrNotExist) {
			return errors.New("mkdir: the directory exists (or cannot be checked): mkdir fails")
		}
		if _, ok := e.made[existing]; ok {
			return errors.New("mkdir: the script made the directory already: mkdir fails")
		}
		missing, existing = []string{filepath.Base(existing)}, filepath.Dir(existing)
		if _, err := os.Lstat(existing); err != nil && e.made[existing] == "" {
			return fmt.Errorf("mkdir: no parent directory: %w", err)
		}
	}
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if _, ok := e.made[existing]; ok {
			break
		}
		missing = append(missing, filepath.Base(existing))
		existing = filepath.Dir(existing)
	}
	real, ok := e.made[existing]
	if !ok {
		var err error
		if real, err = filepath.EvalSymlinks(existing); err != nil {
			return err
		}
		if info, err := os.Stat(real); err != nil {
			return err
		} else if !info.IsDir() {
			return fmt.Errorf("mkdir -p: %s is not a directory", existing)
		}
	}
	if _, made := e.made[existing]; !made && len(missing) > 0 {
		if err := checkWritable(filepath.Join(real, missing[len(missing)-1]), false); err != nil {
			return fmt.Errorf("mkdir: %w", err)
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		existing, real = filepath.Join(existing, missing[i]), filepath.Join(real, missing[i])
		if _, ok := e.index[real]; ok {
			return fmt.Errorf("mkdir -p: %s is a file the script writes", existing)
		}
		if err := e.checkInside(real); err != nil {
			return err
		}
		e.made[existing] = real
	}
	return nil
}
