//go:build unix

package procgroup

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/acp-proxy/acp-proxy/internal/agentproc/proctree"
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

// Alive reports whether process pid runs. A zombie does not: an orphan's
// zombie stays where init reaps nothing (some containers), and kill(2)
// still finds it.
func Alive(pid int) bool {
	if procs, err := proctree.List(); err == nil {
		for _, p := range procs {
			if p.PID == pid {
				return p.Live()
			}
		}
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// ownGroup is this process's process group.
func ownGroup() int { return syscall.Getpgrp() }
