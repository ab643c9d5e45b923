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
func (s Script) Edits(root string, allowOutside bool, maxBytes int64) (files []FileEdit, cut error) {
	e := &editor{root: root, outside: allowOutside, max: maxBytes, index: map[string]int{}, made: map[string]string{}}
	for start := 0; start < len(s.Writes); {
		end := start + 1
		for end < len(s.Writes) && s.Writes[end].group == s.Writes[start].group {
			end++
		}
		next := e.clone()
		if err := next.apply(s.Writes[start:end]); err != nil {
			return e.result(), fmt.Errorf("shellwrite: %s: %w", s.Writes[start].Path, err)
		}
		e, start = next, end
	}
	return e.result(), s.Unknown
}

// editor is the state of the files while Edits goes through the writes.
type editor struct {
	root    string
	outside bool
	max     int64
	files   []fileState
	index   map[string]int    // files by the symlink-free path the kernel writes
	made    map[string]string // directories mkdir -p creates: lexical path -> symlink-free path
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
		return sedSeparate(writes[0].sed, inputs, outputs, e.max)
	}
	return nil
}

// do applies w, whose target is at path (as CheckTarget found it), to f.
func (e *editor) do(w Write, f *fileState, path string) error {
	switch w.Op {
	case Overwrite:
		f.text = w.Content
	case Append:
		f.text = append(slices.Clip(f.text), w.Content...)
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
		out, err := sedOutput(w.sed, f.text, e.max)
		if err != nil {
			return err
		}
		f.text = out
	}
	f.exists, f.written = true, true
	switch {
	case int64(len(f.text)) > e.max:
		return fmt.Errorf("new text larger than %d bytes", e.max)
	case !utf8.Valid(f.text) || bytes.IndexByte(f.text, 0) >= 0:
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
	e.files = append(e.files, fileState{
		edit: FileEdit{Path: t.Path, Old: t.Old, Exists: t.Exists}, key: key, text: t.Old, exists: t.Exists,
	})
	e.index[key] = len(e.files) - 1
	return len(e.files) - 1, opened, nil
}

// target checks w's target and returns it with the symlink-free path the kernel writes.
func (e *editor) target(w Write) (Target, string, error) {
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
	t, err := CheckTarget(w, e.root, e.outside, e.max)
	if err != nil {
		return Target{}, "", err
	}
	key := t.Path
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
