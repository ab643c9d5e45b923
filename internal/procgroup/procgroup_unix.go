//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"
)

// Set makes cmd start a new process group, led by the process itself.
func Set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Signal sends sig to the group led by pid. A group that is already gone
// is not an error.
func Signal(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Alive reports whether process pid exists (it may be a zombie).
func Alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
