package agentproc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes the reaper the parent of every orphan among its
// descendants (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4), so that a command
// the agent started in a session of its own is still found once its parent
// has exited. It reports whether it did.
func becomeSubreaper() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
}

// agentSysProcAttr starts the agent in a process group of its own, and has
// the kernel SIGKILL it if the reaper dies before it (the parent-death
// signal belongs to the thread that started the agent: the reaper's main
// thread, which lives as long as the reaper).
func agentSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
