//go:build unix

package beneath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// sysDir is the directory's own descriptor, which openat starts from.
type sysDir struct{ fd int }

func openSys(name string) (sysDir, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return sysDir{}, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return sysDir{fd}, nil
}

func (s sysDir) close() { unix.Close(s.fd) }

// open opens rel below the directory: Linux's openat2 with RESOLVE_BENEATH
// and RESOLVE_NO_SYMLINKS does it in one call; where it is missing, each
// component is opened with O_NOFOLLOW from the one before.
func (s sysDir) open(name, rel string) (*os.File, error) {
	path := filepath.Join(name, filepath.FromSlash(rel))
	if fd, ok, err := openat2Beneath(s.fd, rel); ok {
		if err != nil {
			return nil, &os.PathError{Op: "openat2", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
	return openNoFollow(s.fd, rel, path)
}

// openNoFollow opens rel below the directory dir one component at a time,
// never following a symlink.
func openNoFollow(dir int, rel, path string) (*os.File, error) {
	elems := strings.Split(rel, "/")
	cur := dir
	for i, elem := range elems {
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(elems)-1 {
			flags |= unix.O_DIRECTORY
		} else {
			flags |= unix.O_NONBLOCK
		}
		fd, err := unix.Openat(cur, elem, flags, 0)
		if cur != dir {
			unix.Close(cur)
		}
		if err != nil {
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				err = fmt.Errorf("%w (a symlink on the way?)", err)
			}
			return nil, &os.PathError{Op: "openat", Path: path, Err: err}
		}
		cur = fd
	}
	return os.NewFile(uintptr(cur), path), nil
}
