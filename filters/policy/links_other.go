//go:build !unix

package policy

import "os"

// otherLinks reports whether a write to path may also write another file; where the proxy
// cannot count a file's links, any existing file may.
func otherLinks(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
