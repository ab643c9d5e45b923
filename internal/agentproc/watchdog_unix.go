//go:build unix

package agentproc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// watchdogScript SIGKILLs process $1 unless the line "done" arrives on
// stdin first. Its stdin is a pipe whose only writer is the proxy, so the
// kernel closes it when the proxy dies, however it dies (SIGKILL from an
// editor included): read then fails at EOF. The watchdog ignores the
// signals a terminal or an editor sends the proxy's process group, so it
// outlives the proxy to do its work.
const watchdogScript = `trap '' INT TERM HUP; IFS= read -r line && [ "$line" = done ] || kill -KILL "$1" 2>/dev/null`

// watchdog gives what the Linux parent-death signal gives where there is
// none (macOS): the agent never outlives a killed proxy. It is a /bin/sh
// process, started right after the agent; an agent is unguarded only in
// the moment between the two starts.
type watchdog struct {
	cmd *exec.Cmd
	w   *os.File // the proxy's end of the watchdog's stdin
}

// startWatchdog starts a watchdog for process pid.
func startWatchdog(pid int) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "acp-proxy-watchdog", strconv.Itoa(pid))
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	return &watchdog{cmd: cmd, w: w}, nil
}

// disarm stops the watchdog without a kill. Call it only once the agent
// has been waited for: until then its pid is its own.
func (wd *watchdog) disarm() {
	_, _ = wd.w.WriteString("done\n")
	wd.w.Close()
	_ = wd.cmd.Wait()
}
