package realagent

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/procgroup"
)

const acpxDir = "acpx"

// Acpx returns the argv prefix that runs the acpx 0.19.1 headless ACP
// client: node and its cli.js, both absolute. Give it a private HOME: it
// keeps a session store there.
func Acpx(t testing.TB) []string {
	t.Helper()
	cli := installed(t, acpxDir, filepath.Join("acpx", "dist", "cli.js"))
	return []string{node(t), cli}
}

const acpSDKv2Dir = "acp-sdk-v2"

// AcpSDKv2 returns node and the absolute path of the ACP TypeScript SDK's
// experimental v2 entry point (@agentclientprotocol/sdk, dist/v2/stable/acp.js),
// for test clients written against it.
func AcpSDKv2(t testing.TB) (nodeBin, entry string) {
	t.Helper()
	entry = installed(t, acpSDKv2Dir, filepath.Join("@agentclientprotocol", "sdk", "dist", "v2", "stable", "acp.js"))
	return node(t), entry
}

// AcpxRun is what one acpx invocation printed.
type AcpxRun struct {
	Stdout, Stderr string
	Took           time.Duration
}

// RunAcpx runs acpx with args (after Acpx's argv) in dir with env, in its
// own process group: acpx starts the agent (and maybe a queue owner), so on
// timeout and afterwards the whole group is killed, never left behind.
func RunAcpx(t testing.TB, env []string, dir string, timeout time.Duration, args ...string) (AcpxRun, error) {
	t.Helper()
	argv := append(Acpx(t), args...)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir // acpx keeps a session store under HOME
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	procgroup.Set(cmd)
	cmd.Cancel = func() error { return procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	// acpx ends the agent itself; this only catches stragglers of the group.
	if cmd.Process != nil {
		if kerr := procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL); kerr != nil {
			t.Logf("kill acpx process group: %v", kerr)
		}
	}
	return AcpxRun{Stdout: stdout.String(), Stderr: stderr.String(), Took: took}, err
}
