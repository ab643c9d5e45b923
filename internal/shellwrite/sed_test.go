package shellwrite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkSedOutput is what one `sed -i` costs the proxy: GNU sed run in each of sedEnvs on a
// 30-line file.
func BenchmarkSedOutput(b *testing.B) {
	sc := &sedCall{scripts: []string{"s/line/LINE/"}}
	text := []byte(strings.Repeat("a line of text\n", 30))
	for range b.N {
		_, err := sedOutput(sc, text, 1<<20, nil)
		require.NoError(b, err)
	}
}

// findGNUSed stands aside where the first sed on PATH is not GNU sed (BSD sed has no --version).
func TestFindGNUSedRefusesOtherSeds(t *testing.T) {
	dir := shellDir(t)
	fake := "#!/bin/sh\necho 'sed: illegal option -- -' >&2\nexit 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sed"), []byte(fake), 0o755))
	_, err := findGNUSed(dir + ":/usr/bin:/bin")
	require.ErrorContains(t, err, "not GNU sed")
	_, err = findGNUSed("relative:/usr/bin")
	require.ErrorContains(t, err, "relative", "a relative PATH entry is refused")
	path, err := findGNUSed("/usr/bin:/bin")
	require.NoError(t, err, "GNU sed in /usr/bin (%s)", path)
}
