//go:build unix

package agentproc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// watchdogScript SIGKILLs process group $1 unless the line "done" arrives
// on stdin first. Its stdin is a pipe whose only writer is the proxy, so the
// kernel closes it when the proxy dies, however it dies (SIGKILL from an
// editor included): read then fails at EOF. The watchdog ignores the
// signals a terminal or an editor sends the proxy's process group, so it
// outlives the proxy to do its work.
const watchdogScript = `trap '' INT TERM HUP; IFS= read -r line && [ "$line" = done ] || kill -KILL -"$1" 2>/dev/null`

// watchdog makes sure that the agent and everything it started never
// outlive a killed proxy: the parent-death signal (where there is one)
// reaches only the agent, and macOS has none. It is a /bin/sh process,
// started right after the agent; an agent is unguarded only in the moment
// between the two starts. It leads a process group of its own, so that an
// editor that kills the proxy's group kills not the watchdog with it.
type watchdog struct {
	cmd *exec.Cmd
	w   *os.File // the proxy's end of the watchdog's stdin
}

// startWatchdog starts a watchdog for the process group led by pid.
func startWatchdog(pid int) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "acp-proxy-watchdog", strconv.Itoa(pid))
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	return &watchdog{cmd: cmd, w: w}, nil
}

// disarm stops the watchdog without a kill. Call it only once the agent's
// group is gone: until then its id is the group's.
func (wd *watchdog) disarm() {
	_, _ = wd.w.WriteString("done\n")
	wd.w.Close()
	_ = wd.cmd.Wait()
}
