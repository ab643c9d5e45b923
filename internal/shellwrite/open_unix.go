//go:build unix

package shellwrite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens the file at path, which lies below the directory base and whose path is
// free of symlinks as CheckTarget resolved it, refusing to follow any symlink on the way: a
// directory swapped for a symlink since the check makes the open fail rather than lead outside
// base. Linux's openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS does that in one call; where
// it is missing, each component is opened with O_NOFOLLOW from the one before.
func openBeneath(base, path string) (*os.File, error) {
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is not below %s", path, base)
	}
	dir, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: base, Err: err}
	}
	defer unix.Close(dir)
	if fd, ok, err := openat2Beneath(dir, rel); ok {
		if err != nil {
			return nil, &os.PathError{Op: "openat2", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
	return openNoFollow(dir, rel, path)
}

// openNoFollow opens rel below the directory dir one component at a time, never following a
// symlink.
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
				err = fmt.Errorf("%w (a symlink where the check found none?)", err)
			}
			return nil, &os.PathError{Op: "openat", Path: path, Err: err}
		}
		cur = fd
	}
	return os.NewFile(uintptr(cur), path), nil
}
