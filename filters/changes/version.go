package changes

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// Limits bound what a call's before-state and report hold.
type Limits struct {
	// MaxFileBytes is the largest file whose text is copied and shown.
	MaxFileBytes int64
	// MaxCopyBytes bounds the text a before-state copies: the files git
	// already sees as changed, or, outside git, the small text files.
	MaxCopyBytes int64
	// MaxFiles bounds the files a scan outside git looks at: past it, the
	// tree is too big to watch, and the flag stands aside for the session.
	MaxFiles int
	// MaxShown bounds the files one update shows; the rest are counted.
	MaxShown int
	// MaxUpdateBytes bounds the bytes of diffs one update carries; a diff
	// past it is left out, its file named with why (zero: the default).
	MaxUpdateBytes int64
}

// DefaultLimits are the limits of --show-changes.
var DefaultLimits = Limits{MaxFileBytes: 1 << 20, MaxCopyBytes: 16 << 20, MaxFiles: 100_000, MaxShown: 50, MaxUpdateBytes: 24 << 20}

// kind is what a path is.
type kind uint8

const (
	absent kind = iota
	regular
	symlink
	other // a directory where a file was, a FIFO, a device: never read
)

// version is one path at one time: what it is, its stat, and its text
// when it was read.
type version struct {
	kind kind
	// read: content and hash hold the whole file; text says it is UTF-8
	// without NUL bytes. Unread, why says why.
	read bool
	text bool
	// during: a before-state saw it written while it was being taken (its
	// time is past the take's start): the write may be a command's that
	// had started, so what it held before is not known.
	during  bool
	mode    fs.FileMode
	size    int64
	mtime   int64  // nanoseconds
	link    string // a symlink's target, as the link holds it
	content []byte
	hash    [sha256.Size]byte
	why     string
}

// markDuring marks the versions of files whose time is at or past start
// (Unix nanoseconds) as written while the before-state was taken.
func markDuring(files map[string]version, start int64) {
	for p, v := range files {
		v.markDuring(start)
		files[p] = v
	}
}

// markDuring marks v as written while its before-state was taken when its
// time is at or past start (Unix nanoseconds).
func (v *version) markDuring(start int64) {
	if v.kind != absent && v.mtime >= start {
		v.during = true
	}
}

// takeStart is the moment a before-state taken now stands for: when it
// was asked for (the prompt sent, the last command ended), as ctx says,
// else now. A file whose time is at or past it was written after that
// moment, while the before-state waited its turn or was being taken. The
// kernel stamps files with a clock that lags by up to a tick, so a write
// in the tick after may still pass for one before; no file written before
// is taken for one after.
func takeStart(ctx context.Context) int64 {
	if at, ok := ctx.Value(askedKey{}).(int64); ok && at != 0 {
		return at
	}
	return time.Now().UnixNano()
}

// askedKey is the context key of when a before-state was asked for (Unix
// nanoseconds).
type askedKey struct{}

// withAsked is ctx saying that the before-state taken with it was asked
// for at (Unix nanoseconds).
func withAsked(ctx context.Context, at int64) context.Context {
	return context.WithValue(ctx, askedKey{}, at)
}

// sameStat reports whether two versions look the same without their
// content: what git's index and a stat scan compare.
func (v version) sameStat(w version) bool {
	return v.kind == w.kind && v.size == w.size && v.mtime == w.mtime && v.mode == w.mode && v.link == w.link
}

// stat is the version of rel under d without its content; it never
// follows a symlink.
func stat(d *beneath.Dir, rel string) version {
	fi, err := d.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return version{}
		}
		return version{kind: other, why: "cannot be read (" + unwrapPath(err) + ")"}
	}
	return versionOf(d, rel, fi)
}

// versionOf is the version fi (an Lstat of rel under d) says, without the
// content.
func versionOf(d *beneath.Dir, rel string, fi fs.FileInfo) version {
	return classified(version{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}, func() (string, error) {
		return d.Readlink(rel)
	})
}

// classified is v, a stat, with what it is: a symbolic link's target read
// by readlink.
func classified(v version, readlink func() (string, error)) version {
	switch {
	case v.mode&fs.ModeSymlink != 0:
		v.kind = symlink
		v.link, _ = readlink()
		v.why = "a symbolic link (to " + v.link + "); the proxy never follows one"
	case v.mode.IsRegular():
		v.kind = regular
	default:
		v.kind = other
		v.why = "not a regular file (" + v.mode.Type().String() + ")"
	}
	return v
}

// readVersion is the version of rel under d with its text, when it is a
// regular file of at most max bytes, read as every filter reads a file it
// shows (beneath): a FIFO never blocks the read, a symlink is never
// followed; what could not be read is said.
func readVersion(d *beneath.Dir, rel string, max int64) version {
	content, fi, err := d.ReadFile(rel, max)
	if fi == nil { // not opened: absent, a symlink, unreadable
		v := stat(d, rel)
		if v.kind == regular {
			v.why = "cannot be read (" + unwrapPath(err) + ")"
		}
		return v
	}
	v := versionOf(d, rel, fi) // the open file's own stat
	switch {
	case v.kind != regular:
	case errors.Is(err, beneath.ErrTooLarge):
		v.why = fmt.Sprintf("larger than %s (%d bytes)", sizeWords(max), v.size)
	case err != nil:
		v.why = "cannot be read (" + unwrapPath(err) + ")"
	default:
		v.setContent(content)
	}
	return v
}

// setContent makes content the version's text.
func (v *version) setContent(content []byte) {
	v.read, v.content, v.hash = true, content, sha256.Sum256(content)
	v.text = beneath.Text(content)
	v.why = ""
	if !v.text {
		v.why = "a binary file"
	}
}

// unwrapPath is err's reason without the path os puts in front.
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// sizeWords is n bytes as a reader says it.
func sizeWords(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
