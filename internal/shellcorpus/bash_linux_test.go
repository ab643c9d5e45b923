package shellcorpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sandboxed bash has no network interface but loopback, finds only
// Tools, and, started by root, runs as nobody.
func TestBashRunnerSandbox(t *testing.T) {
	tmp := sandboxParent(t)
	run, err := NewBashRunner(tmp)
	if err != nil {
		t.Skipf("no sandboxed bash here: %v", err)
	}
	dir := filepath.Join(tmp, "d")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, handOver(dir))
	script := "cat /proc/net/dev > net; echo $EUID > uid; type python3 git curl > found 2>&1; ulimit -f > fsize; echo x > " + filepath.Join(tmp, "above")
	require.NoError(t, run(dir, script))
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return string(b)
	}
	for _, line := range strings.Split(strings.TrimSpace(read("net")), "\n")[2:] {
		iface := strings.TrimSpace(strings.SplitN(line, ":", 2)[0])
		assert.Equal(t, "lo", iface, "interface %q in the sandbox", iface)
	}
	assert.NotContains(t, read("found"), " is /", "programs outside Tools found: %s", read("found"))
	if _, err := exec.LookPath("prlimit"); err == nil {
		got := strings.TrimSpace(read("fsize"))
		assert.Equal(t, "65536", got, "ulimit -f")
	}
	if os.Geteuid() == 0 {
		got := strings.TrimSpace(read("uid"))
		assert.Equal(t, "65534", got, "runs as uid %s, want nobody", got)
		_, err := os.Stat(filepath.Join(tmp, "above"))
		assert.Error(t, err, "wrote outside the directory handed over")
	}
}
