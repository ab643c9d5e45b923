//go:build unix

package pipebench

import "syscall"

// CPUTime is the user and system CPU time the process has used, in ns.
func CPUTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
