//go:build unix

package shellwrite

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// checkWritable refuses a target the shell would not write as shown. An existing file with more
// than one link is also another file, maybe outside the project (pnpm's store links its files
// into node_modules). A file the agent cannot open for writing, or a new one in a directory it
// cannot add to, makes the shell fail and write nothing: the mode bits for the agent's user
// (the proxy's, which starts it), an immutable file or directory, a read-only mount. access(2)
// asks the kernel all three, for the proxy's real user (the agent's: the proxy is no setuid
// program). AT_EACCESS is not used: where faccessat2 is missing, Go emulates it from the mode
// bits alone, which miss the other two.
func checkWritable(resolved string, exists bool) error {
	if !exists {
		dir := filepath.Dir(resolved)
		if err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, 0); err != nil {
			return fmt.Errorf("cannot create a file in %s: %w", dir, err)
		}
		return nil
	}
	var st unix.Stat_t
	if err := unix.Stat(resolved, &st); err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	if st.Nlink > 1 {
		return fmt.Errorf("%s has %d hard links: it is also another file", resolved, st.Nlink)
	}
	if err := unix.Faccessat(unix.AT_FDCWD, resolved, unix.W_OK, 0); err != nil {
		return fmt.Errorf("%s is not writable: %w", resolved, err)
	}
	return nil
}
