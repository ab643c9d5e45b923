package beneath

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openat2Beneath opens rel below dir with openat2, refusing symlinks and
// escapes; ok is false where the kernel (before 5.6) or a seccomp filter
// does not offer openat2.
func openat2Beneath(dir int, rel string) (fd int, ok bool, err error) {
	fd, err = unix.Openat2(dir, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, false, nil
	}
	return fd, true, err
}
