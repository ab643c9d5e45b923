//go:build !unix

package changes

import "os"

// openFlags open a file to read its text; os.Root keeps the open under
// the session's directory, and the Lstat before it rules out a link.
const openFlags = os.O_RDONLY
