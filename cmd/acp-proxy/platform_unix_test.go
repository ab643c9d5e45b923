//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is a finished process's peak resident memory in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	ru := ps.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes there, KiB elsewhere
	}
	return ru.Maxrss << 10
}

// kill ends process pid, if it still runs.
func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
