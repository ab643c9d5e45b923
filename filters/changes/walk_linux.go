package changes

import (
	"bytes"
	"context"
	"encoding/binary"
	"io/fs"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// walkFiles calls fn with every file under root but the skipped folders
// (its folder's path, "" or ending in '/', and its name), in walkOrder, until fn returns false; note says why it stopped early
// when the scan was stopped (ctx). Each folder is opened from its parent
// (never through a symbolic link) and each entry stat'ed from its
// folder's descriptor: no path is built for the kernel to look up again
// from the root. An unreadable folder is not entered; an entry gone
// before its stat is not a file.
func walkFiles(ctx context.Context, root string, _ *beneath.Dir, fn func(folder, name string, v version) bool) (note string) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	w := &walker{ctx: ctx, fn: fn, buf: make([]byte, 32<<10)}
	w.folder(fd, "")
	return w.note
}

// walker is one walkFiles.
type walker struct {
	ctx context.Context
	fn  func(folder, name string, v version) bool
	buf []byte // getdents' buffer, for every folder in turn
	// names holds the names of the folders being walked, each folder's
	// after its parent's (a stack: a folder's are dropped once walked),
	// and raw the bytes of one folder's names as they are read: a walk
	// allocates per folder, not per file (its garbage is a report's).
	names []string
	raw   []byte
	ends  []int
	note  string
}

// folder walks the folder open as fd (closing it), whose files' paths
// start with prefix; false: the walk stops.
func (w *walker) folder(fd int, prefix string) bool {
	defer unix.Close(fd)
	if w.ctx.Err() != nil {
		w.note = "the scan was stopped: " + context.Cause(w.ctx).Error()
		return false
	}
	mark := len(w.names)
	defer func() { clear(w.names[mark:]); w.names = w.names[:mark] }()
	w.readNames(fd)
	var st unix.Stat_t
	for k := mark; k < len(w.names); k++ {
		name := w.names[k]
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if skipDir(name) {
				continue
			}
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err == nil && !w.folder(sub, prefix+name+"/") {
				return false
			}
			continue
		}
		v := classified(version{size: st.Size, mtime: st.Mtim.Nano(), mode: fileMode(st.Mode)}, func() (string, error) {
			return readlinkat(fd, name)
		})
		if !w.fn(prefix, name, v) {
			return false
		}
	}
	return true
}

// readNames pushes the entries of the folder open as fd, sorted, onto
// w.names: those read before an error; "." and ".." are not entries.
// They are substrings of one string, the folder's.
func (w *walker) readNames(fd int) {
	w.raw, w.ends = w.raw[:0], w.ends[:0]
	for {
		n, err := unix.ReadDirent(fd, w.buf)
		if err != nil || n <= 0 {
			break
		}
		w.parseDirents(w.buf[:n])
	}
	all, start := string(w.raw), 0
	mark := len(w.names)
	for _, end := range w.ends {
		w.names = append(w.names, all[start:end])
		start = end
	}
	slices.Sort(w.names[mark:])
}

// direntName is where a linux_dirent64's name starts: after its inode
// (8 bytes), offset (8), record length (2) and type (1).
const direntName = 19

// parseDirents appends the names of the linux_dirent64 records of b to
// w.raw, each one's end to w.ends.
func (w *walker) parseDirents(b []byte) {
	for len(b) >= direntName {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < direntName || reclen > len(b) {
			return
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[direntName:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if binary.NativeEndian.Uint64(rec[:8]) == 0 || string(name) == "." || string(name) == ".." {
			continue // an entry deleted, or not one
		}
		w.raw = append(w.raw, name...)
		w.ends = append(w.ends, len(w.raw))
	}
}

// readlinkat is the target of the symbolic link name in the folder fd.
func readlinkat(fd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		b := make([]byte, size)
		n, err := unix.Readlinkat(fd, name, b)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(b[:n]), nil
		}
	}
}

// fileMode is the stat mode m as package os says it (os.Lstat's FileMode).
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
