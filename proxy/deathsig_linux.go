package proxy

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel SIGKILL the agent when the thread that
// starts it dies, which happens only when the proxy itself dies.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
