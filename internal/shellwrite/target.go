package shellwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// Target is what CheckTarget found on disk for a Write.
type Target struct {
	// Path is the file the shell opens, absolute and clean: the Write's Path, or, when its
	// target has a '..', the path the kernel resolves it to.
	Path   string
	Old    []byte // the existing file's content; nil if it does not exist
	Exists bool
	// opened is the path the shell opens, before the kernel follows a symlink at its end (Path
	// is the file that link leads to): sed -i replaces such a link rather than writing through it.
	opened string
}

// CheckTarget checks the filesystem side, as of now: the directories cd goes through are
// directories, the target's parent directory exists (after resolving symlinks), the target is not a
// directory, and the fully symlink-resolved target lies inside root (also symlink-resolved) unless
// allowOutside. It returns where the file lands and the existing file's content (nil,
// Exists=false if it does not exist) read with a limit of maxBytes (error if larger), and an error
// if the existing content is not valid UTF-8 text (it is shown as a diff's oldText).
//
// An existing target must be a regular file: reading a FIFO would block, and a device is no text.
// A symlink that points nowhere is rejected: the shell would create the file it points to, wherever
// that is. Text means valid UTF-8 without NUL bytes. The content is read without following any
// symlink below root (or below / with allowOutside), so that a directory swapped for a symlink
// since the check cannot lead the read elsewhere.
func CheckTarget(w Write, root string, allowOutside bool, maxBytes int64) (Target, error) {
	t, err := checkTarget(w, root, allowOutside, maxBytes, true)
	if err != nil {
		return Target{}, fmt.Errorf("shellwrite: target %s: %w", w.Path, err)
	}
	return t, nil
}

// checkTarget is CheckTarget; without read, an existing file's content is not read (Old stays
// nil): a script's editor reads each file once, not once per statement that writes it.
func checkTarget(w Write, root string, allowOutside bool, maxBytes int64, read bool) (Target, error) {
	if !filepath.IsAbs(w.Path) || filepath.Clean(w.Path) != w.Path {
		return Target{}, errors.New("path is not absolute and clean")
	}
	if maxBytes < 0 {
		return Target{}, fmt.Errorf("negative size limit %d", maxBytes)
	}
	for _, d := range w.place.dirs {
		if info, err := os.Stat(d); err != nil {
			return Target{}, fmt.Errorf("cd: %w", err)
		} else if !info.IsDir() {
			return Target{}, fmt.Errorf("cd: %s is not a directory", d)
		}
	}
	path := w.Path
	if w.place.dotdot {
		var err error
		if path, err = physicalPath(w.place.dir, w.place.target); err != nil {
			return Target{}, err
		}
	}
	if err := checkVisible(path); err != nil {
		return Target{}, err
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return Target{}, fmt.Errorf("parent directory: %w", err)
	}
	if info, err := os.Stat(parent); err != nil {
		return Target{}, fmt.Errorf("parent directory: %w", err)
	} else if !info.IsDir() {
		return Target{}, fmt.Errorf("parent %s is not a directory", parent)
	}
	resolved, exists, err := resolveTarget(filepath.Join(parent, filepath.Base(path)))
	if err != nil {
		return Target{}, err
	}
	if isDev(resolved) {
		return Target{}, fmt.Errorf("%s is under /dev", resolved)
	}
	base := "/"
	if !allowOutside {
		if base, err = checkInside(resolved, root); err != nil {
			return Target{}, err
		}
	}
	if err := checkWritable(resolved, exists); err != nil {
		return Target{}, err
	}
	shown := writtenPath(path, parent, resolved, root)
	if !exists || !read {
		return Target{Path: shown, Exists: exists, opened: path}, nil
	}
	old, err := readText(base, resolved, maxBytes)
	if err != nil {
		return Target{}, err
	}
	return Target{Path: shown, Old: old, Exists: true, opened: path}, nil
}

// writtenPath is the name a diff gives the file the kernel writes for path, whose directory
// resolves to parent and whose whole name resolves to resolved. A symlink on the way (docs/notes.md
// -> ../src/config.py, or a directory docs -> src) writes another file than the name says: the
// diff names that file, spelled below root as root is when it lies there, so that the user sees
// which file changes. Without a symlink it is path as written.
func writtenPath(path, parent, resolved, root string) string {
	if resolved == filepath.Join(parent, filepath.Base(path)) {
		if lexical, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil && lexical == parent && !viaSymlinkDir(path, root) {
			return path
		}
	}
	return belowRoot(resolved, root)
}

// belowRoot is the symlink-free path resolved spelled with root's name when it lies below root
// (whose own name may hold a symlink: a title stays relative to the session's directory).
func belowRoot(resolved, root string) string {
	if filepath.IsAbs(root) {
		if realRoot, err := beneath.Resolve(root); err == nil {
			if rel, err := filepath.Rel(realRoot, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return filepath.Join(root, rel)
			}
		}
	}
	return resolved
}

// viaSymlinkDir reports whether a directory of path below root is a symlink: then the name
// path gives below root is not where the file lies.
func viaSymlinkDir(path, root string) bool {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	dir := root
	for _, elem := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, elem)
		if info, err := os.Lstat(dir); err != nil || info.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// ReadBack reads the file at path (a Target's Path) again, after the command that wrote it ran:
// its content, and whether it exists. It refuses what CheckTarget refuses to read (symlinks that
// lead outside root unless allowOutside, a file that is not regular, more than maxBytes, text
// that is not UTF-8), and opens the file the same way, without following a symlink swapped in.
func ReadBack(path, root string, allowOutside bool, maxBytes int64) (content []byte, exists bool, err error) {
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("shellwrite: read back %s: %w", path, err)
	}
	resolved, exists, err := resolveTarget(filepath.Join(parent, filepath.Base(path)))
	if err != nil || !exists {
		return nil, false, err
	}
	base := "/"
	if !allowOutside {
		if base, err = checkInside(resolved, root); err != nil {
			return nil, true, fmt.Errorf("shellwrite: read back: %w", err)
		}
	}
	if content, err = readText(base, resolved, maxBytes); err != nil {
		return nil, true, fmt.Errorf("shellwrite: read back %s: %w", path, err)
	}
	return content, true, nil
}

// physicalPath returns the path the kernel opens for target, relative to dir unless absolute,
// when target has '..' components: each '..' leads to the parent of the directory reached so far,
// after its symlinks. The path keeps dir's spelling where that names the same directory as the
// kernel reaches, so that a title stays relative to the session's directory.
func physicalPath(dir, target string) (string, error) {
	cur := "/"
	if !filepath.IsAbs(target) {
		var err error
		if cur, err = filepath.EvalSymlinks(dir); err != nil {
			return "", fmt.Errorf("directory: %w", err)
		}
	}
	elems := strings.Split(target, "/")
	for _, elem := range elems[:len(elems)-1] {
		switch elem {
		case "", ".":
		case "..":
			cur = filepath.Dir(cur)
		default:
			next, err := filepath.EvalSymlinks(filepath.Join(cur, elem))
			if err != nil {
				return "", fmt.Errorf("directory: %w", err)
			}
			if info, err := os.Stat(next); err != nil {
				return "", fmt.Errorf("directory: %w", err)
			} else if !info.IsDir() {
				return "", fmt.Errorf("%s is not a directory", next)
			}
			cur = next
		}
	}
	lexical := joinAbs(dir, target)
	if same, err := filepath.EvalSymlinks(filepath.Dir(lexical)); err == nil && same == cur {
		return lexical, nil
	}
	return filepath.Join(cur, elems[len(elems)-1]), nil
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

// checkInside requires the resolved path to lie inside root, once root's symlinks are resolved
// too, and returns the resolved root.
func checkInside(resolved, root string) (string, error) {
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("root %q is not absolute", root)
	}
	realRoot, err := beneath.Resolve(root)
	if err != nil {
		return "", fmt.Errorf("root: %w", err)
	}
	rel, err := filepath.Rel(realRoot, resolved)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is outside %s", resolved, realRoot)
	}
	return realRoot, nil
}

// readText reads the regular file at path, below the directory base, if it holds at most maxBytes
// of text, as every filter reads a file it shows (beneath.Dir.ReadFile): without following a
// symlink below base, and without blocking on a FIFO that took the file's place.
func readText(base, path string, maxBytes int64) ([]byte, error) {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is not below %s", path, base)
	}
	dir, err := beneath.OpenDir(base)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	content, _, err := dir.ReadFile(filepath.ToSlash(rel), maxBytes)
	var notRegular beneath.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("%s is %w", path, err)
	case errors.Is(err, beneath.ErrTooLarge):
		return nil, fmt.Errorf("larger than %d bytes", maxBytes)
	case err != nil:
		return nil, err
	case !beneath.Text(content):
		return nil, errors.New("existing content is not UTF-8 text")
	}
	return content, nil
}
