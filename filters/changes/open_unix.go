//go:build unix

package changes

import (
	"os"
	"syscall"
)

// openFlags open a file to read its text: never a FIFO's blocking open,
// never through a symlink swapped in after the Lstat.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW
