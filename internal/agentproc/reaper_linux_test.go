package agentproc

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command codex runs is in a session of its own (setsid): no signal to
// the agent's process group reaches it, and once its shell exits, what it
// left running is an orphan. The reaper finds it all the same (Linux: a
// child subreaper), however the agent ends.
func TestNothingTheAgentStartedInASessionOfItsOwnOutlivesIt(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) is not installed")
	}
	// The shell prints the pids of its two sleeps, a background one and
	// the one it becomes, as `sleep 120 & sleep 121` leaves them.
	const command = `setsid sh -c 'sleep 120 >/dev/null 2>&1 & echo $! $$; exec sleep 121 >/dev/null 2>&1' & `
	// Here the shell exits at once: its sleep is an orphan.
	const orphan = `setsid sh -c 'sleep 120 >/dev/null 2>&1 & echo $! $!' & `
	cases := []struct {
		name   string
		script string
		stop   bool
		want   int
	}{
		{"the client is gone and the agent ignores EOF", command + `exec sleep 60`, true, 128 + 15},
		{"the agent exits by itself", command + `sleep 0.2; exit 3`, false, 3},
		{"the command's shell had exited, leaving an orphan", orphan + `exec sleep 60`, true, 128 + 15},
		{"the agent ignores SIGTERM", `trap "" TERM; ` + command + `while :; do sleep 0.01; done`, true, 128 + 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := startShellAgent(t, c.script, 200*time.Millisecond, nil)
			var pids []int
			for _, f := range strings.Fields(a.line(t)) {
				pid, err := strconv.Atoi(f)
				require.NoError(t, err)
				pids = append(pids, pid)
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			for _, pid := range pids {
				require.Eventually(t, func() bool { return running(pid) }, 5*time.Second, 10*time.Millisecond, "sleep %d runs", pid)
			}
			if c.stop {
				a.Stop("the test is done")
			}
			assert.Equal(t, c.want, a.waitStatus(t))
			for _, pid := range pids {
				assert.False(t, running(pid), "sleep %d outlived the agent", pid)
			}
		})
	}
}

// A proxy killed with SIGKILL runs no code: the kernel closes its end of
// the reaper's control pipe, and the reaper ends the tree by itself. It is
// deaf to the signals an editor or a terminal sends the proxy's group.
func TestTheReaperEndsTheTreeOfAProxyThatDied(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) is not installed")
	}
	for _, groupSignals := range []bool{false, true} {
		t.Run("signals to the proxy's group: "+strconv.FormatBool(groupSignals), func(t *testing.T) {
			a := startShellAgent(t, `setsid sh -c 'echo $$; exec sleep 120 >/dev/null 2>&1' & exec sleep 60`, 200*time.Millisecond, nil)
			orphan, err := strconv.Atoi(a.line(t))
			require.NoError(t, err)
			t.Cleanup(func() { _ = syscall.Kill(orphan, syscall.SIGKILL) })
			if groupSignals {
				for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
					require.NoError(t, a.proc.cmd.Process.Signal(s))
				}
			}
			require.NoError(t, a.proc.control.Close()) // as the kernel closes it
			assert.Equal(t, 128+15, a.waitStatus(t), "the agent got EOF, its grace, then SIGTERM")
			assert.False(t, running(orphan), "the command outlived the proxy")
		})
	}
}
