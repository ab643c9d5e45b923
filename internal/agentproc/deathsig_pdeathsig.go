//go:build linux || freebsd

package agentproc

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel SIGKILL the agent when its parent dies:
// on Linux when the thread that started it ends, which happens only when
// the proxy itself dies (see startAndWait); on FreeBSD (procctl
// PROC_PDEATHSIG_CTL) when the proxy process exits.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
