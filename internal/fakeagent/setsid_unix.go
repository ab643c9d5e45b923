//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// newSession makes cmd start a session of its own.
func newSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
