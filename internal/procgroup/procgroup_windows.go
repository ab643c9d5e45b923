package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Set does nothing: Windows has no process groups to signal.
func Set(*exec.Cmd) {}

// Signal kills process pid, whatever sig is: the only signal Windows can
// send another process.
func Signal(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil // already gone
	}
	defer p.Release()
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// Alive reports whether process pid exists.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

// ownGroup is none: Windows has no process groups (and Watch lists no
// processes there).
func ownGroup() int { return -1 }
