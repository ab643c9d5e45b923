//go:build unix

package policy

import "golang.org/x/sys/unix"

// otherLinks reports an existing file with more than one hard link: a write to it also writes a
// file elsewhere, maybe outside the project, which no path says.
func otherLinks(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1
}
