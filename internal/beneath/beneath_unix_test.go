//go:build unix

package beneath

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openNoFollowFor(d *Dir, rel string) (*os.File, error) {
	return openNoFollow(d.sys.fd, rel, filepath.Join(d.Name(), rel))
}

// Where openat2 is missing (kernels before 5.6, other systems), each
// component is opened with O_NOFOLLOW: a symlink anywhere on the way fails.
func TestOpenOneComponentAtATimeFollowsNoLink(t *testing.T) {
	root := linkedTree(t)
	d, err := OpenDir(root)
	require.NoError(t, err)
	defer d.Close()
	for rel, ok := range map[string]bool{"real/f": true, "dir-link/f": false, "file-link": false} {
		f, err := openNoFollowFor(d, rel)
		assert.Equal(t, ok, err == nil, "openNoFollow(%s): err = %v, want success %v", rel, err, ok)
		if f != nil {
			f.Close()
		}
	}
}
