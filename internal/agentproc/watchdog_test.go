//go:build unix

package agentproc

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The watchdog is what macOS gets instead of a parent-death signal; its
// mechanism is plain Unix, so it is proven here.
func TestWatchdog(t *testing.T) {
	cases := []struct {
		name       string
		proxyDies  func(*watchdog)
		agentDies  bool
		agentWants string
	}{
		{"kills the agent's group when the proxy's end of the pipe closes without a word, as when the proxy is killed",
			func(wd *watchdog) { wd.w.Close(); _ = wd.cmd.Wait() }, true, "killed"},
		{"leaves the agent alone once disarmed",
			func(wd *watchdog) { wd.disarm() }, false, "running"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// An agent with a child of its own, as an npm launcher has.
			agent := exec.Command("sh", "-c", "sleep 60 & wait")
			agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			require.NoError(t, agent.Start())
			exited := make(chan error, 1)
			waited := make(chan struct{})
			go func() { exited <- agent.Wait(); close(waited) }()
			t.Cleanup(func() { _ = signalGroup(agent.Process.Pid, syscall.SIGKILL); <-waited })

			wd, err := startWatchdog(agent.Process.Pid)
			require.NoError(t, err)
			c.proxyDies(wd)

			select {
			case err := <-exited:
				require.True(t, c.agentDies, "the agent ended: %v", err)
				ws := agent.ProcessState.Sys().(syscall.WaitStatus)
				assert.Equal(t, syscall.SIGKILL, ws.Signal())
				assert.True(t, waitGroupGone(agent.Process.Pid, 5*time.Second), "the agent's child was killed with it")
			case <-time.After(300 * time.Millisecond):
				require.False(t, c.agentDies, "the agent still runs")
			}
		})
	}
}

func TestTheWatchdogIgnoresTheSignalsSentToTheProxysGroup(t *testing.T) {
	agent := exec.Command("sleep", "60")
	agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as the agent is started
	require.NoError(t, agent.Start())
	t.Cleanup(func() { _ = agent.Process.Kill() })
	wd, err := startWatchdog(agent.Process.Pid)
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // until the trap is set
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		require.NoError(t, wd.cmd.Process.Signal(s))
	}
	wd.w.Close() // the proxy dies
	require.NoError(t, wd.cmd.Wait(), "the watchdog did its work and exited normally")
	err = agent.Wait()
	require.Error(t, err)
	assert.Equal(t, syscall.SIGKILL, agent.ProcessState.Sys().(syscall.WaitStatus).Signal())
}
