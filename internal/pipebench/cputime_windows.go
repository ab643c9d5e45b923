package pipebench

import "golang.org/x/sys/windows"

// CPUTime is the user and system CPU time the process has used, in ns.
func CPUTime() int64 {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	// Filetimes count 100 ns intervals; Nanoseconds() reads them as dates.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return (ticks(kernel) + ticks(user)) * 100
}
