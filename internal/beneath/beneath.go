// Package beneath reads a file below a directory the way every filter that
// shows a file's text does (shell-to-patch's targets, show-changes' files):
// never through a symbolic link on the way, never blocking on a FIFO that
// took a file's place, and with one test of what is text.
//
// A session's directory may itself be reached through a symbolic link
// (macOS's /tmp is one, and a user's project often is): that link is the
// user's, and is followed once, when the directory is opened (Resolve says
// where it leads); below it, nothing is.
package beneath

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Resolve is the directory dir (absolute) with its own symbolic links
// resolved: the directory whose files are read.
func Resolve(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%s is not absolute", dir)
	}
	return filepath.EvalSymlinks(dir)
}

// Dir is a directory open to read the files below it.
type Dir struct {
	// Root answers what a path below the directory is (Lstat, Readlink),
	// never leaving it.
	*os.Root
	sys sysDir
}

// OpenDir opens the directory name, following its own symbolic links.
func OpenDir(name string) (*Dir, error) {
	r, err := os.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	sys, err := openSys(name)
	if err != nil {
		r.Close()
		return nil, err
	}
	return &Dir{Root: r, sys: sys}, nil
}

// Close closes the directory.
func (d *Dir) Close() error {
	d.sys.close()
	return d.Root.Close()
}

// Open opens the file rel (slash-separated, below the directory) to read
// it, following no symbolic link on the way and never blocking on a FIFO.
func (d *Dir) Open(rel string) (*os.File, error) {
	if rel == "" || rel == "." || filepath.IsAbs(rel) || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return nil, &os.PathError{Op: "open", Path: rel, Err: errors.New("not below the directory")}
	}
	return d.sys.open(d.Name(), rel)
}

// ErrTooLarge is a file larger than ReadFile was asked to read.
var ErrTooLarge = errors.New("larger than the bytes asked for")

// NotRegularError is a path that is not a regular file (a FIFO, a
// directory, a device).
type NotRegularError struct{ Mode os.FileMode }

func (e NotRegularError) Error() string { return "not a regular file (" + e.Mode.Type().String() + ")" }

// ReadFile reads the regular file rel below the directory, when it holds
// at most max bytes (else ErrTooLarge), opened as Open does; info is its
// stat from the open file.
func (d *Dir) ReadFile(rel string, max int64) (content []byte, info os.FileInfo, err error) {
	f, err := d.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, info, NotRegularError{info.Mode()}
	}
	if info.Size() > max {
		return nil, info, ErrTooLarge
	}
	content, err = readAll(f, info.Size(), max)
	return content, info, err
}

// readAll reads f, of size bytes as its stat said, into an array of that
// size (one more byte, to see the end): io.ReadAll's first 512 bytes, and
// its doublings, would be thrown away by a caller that keeps many small
// files. Past max bytes it is ErrTooLarge (the file grew).
func readAll(f io.Reader, size, max int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case int64(len(b)) > max:
			return b, ErrTooLarge
		case err == io.EOF:
			return b, nil
		case err != nil:
			return b, err
		case len(b) == cap(b): // it grew
			b = append(b, 0)[:len(b)]
		}
	}
}

// Text reports whether content is text to show in a diff: UTF-8, without
// a NUL byte.
func Text(content []byte) bool {
	return utf8.Valid(content) && bytes.IndexByte(content, 0) < 0
}
