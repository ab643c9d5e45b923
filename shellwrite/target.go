package shellwrite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// CheckTarget checks the filesystem side, as of now: the target's parent directory exists (after
// resolving symlinks), the target is not a directory, and the fully symlink-resolved target lies inside
// root (also symlink-resolved) unless allowOutside. Returns the existing file's content (nil, exists=false if
// it does not exist) read with a limit of maxBytes (error if larger), and an error if the existing
// content is not valid UTF-8 text (it is shown as a diff's oldText).
//
// An existing target must be a regular file: reading a FIFO would block, and a device is no text.
// A symlink that points nowhere is rejected: the shell would create the file it points to, wherever
// that is. Text means valid UTF-8 without NUL bytes.
func CheckTarget(w Write, root string, allowOutside bool, maxBytes int64) (old []byte, exists bool, err error) {
	old, exists, err = checkTarget(w, root, allowOutside, maxBytes)
	if err != nil {
		return nil, false, fmt.Errorf("shellwrite: target %s: %w", w.Path, err)
	}
	return old, exists, nil
}

func checkTarget(w Write, root string, allowOutside bool, maxBytes int64) ([]byte, bool, error) {
	if !filepath.IsAbs(w.Path) || filepath.Clean(w.Path) != w.Path {
		return nil, false, errors.New("path is not absolute and clean")
	}
	if maxBytes < 0 {
		return nil, false, fmt.Errorf("negative size limit %d", maxBytes)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(w.Path))
	if err != nil {
		return nil, false, fmt.Errorf("parent directory: %w", err)
	}
	if info, err := os.Stat(parent); err != nil {
		return nil, false, fmt.Errorf("parent directory: %w", err)
	} else if !info.IsDir() {
		return nil, false, fmt.Errorf("parent %s is not a directory", parent)
	}
	resolved, exists, err := resolveTarget(filepath.Join(parent, filepath.Base(w.Path)))
	if err != nil {
		return nil, false, err
	}
	if !allowOutside {
		if err := checkInside(resolved, root); err != nil {
			return nil, false, err
		}
	}
	if !exists {
		return nil, false, nil
	}
	old, err := readText(resolved, maxBytes)
	if err != nil {
		return nil, false, err
	}
	return old, true, nil
}

// resolveTarget resolves the symlinks of path, whose parent is already resolved, and reports
// whether it exists.
func resolveTarget(path string) (resolved string, exists bool, err error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		if path, err = filepath.EvalSymlinks(path); err != nil {
			return "", false, fmt.Errorf("symlink: %w", err)
		}
		if info, err = os.Stat(path); err != nil {
			return "", false, err
		}
	}
	if info.IsDir() {
		return "", false, fmt.Errorf("%s is a directory", path)
	}
	if !info.Mode().IsRegular() {
		return "", false, fmt.Errorf("%s is not a regular file (%s)", path, info.Mode().Type())
	}
	return path, true, nil
}

// checkInside requires the resolved path to lie inside root, once root's symlinks are resolved too.
func checkInside(resolved, root string) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("root %q is not absolute", root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("root: %w", err)
	}
	rel, err := filepath.Rel(realRoot, resolved)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is outside %s", resolved, realRoot)
	}
	return nil
}

// readText reads the regular file at path if it holds at most maxBytes of text. O_NONBLOCK keeps
// the open from hanging if a FIFO has taken the file's place since it was checked.
func readText(path string, maxBytes int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, info.Mode().Type())
	}
	content, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(content)) > maxBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxBytes)
	}
	if !utf8.Valid(content) || bytes.IndexByte(content, 0) >= 0 {
		return nil, errors.New("existing content is not UTF-8 text")
	}
	return content, nil
}
