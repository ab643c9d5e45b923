//go:build unix && !linux

package agentproc

import "syscall"

// becomeSubreaper does nothing: only Linux has child subreapers here (the
// reaper finds what still descends from it, and the agent's group).
func becomeSubreaper() bool { return false }

// agentSysProcAttr starts the agent in a process group of its own.
func agentSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
