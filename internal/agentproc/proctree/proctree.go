// Package proctree lists the system's processes, so that the proxy can tell
// whether an agent's process group still has a live process, and tests can
// tell whether anything an agent started outlived it. Zombies are not live:
// a process that has exited but whose parent has not reaped it (a container
// whose init reaps nothing keeps them for ever) runs nothing.
//
// Listing is Linux's (/proc) and macOS's (sysctl kern.proc.all); elsewhere
// List returns errors.ErrUnsupported and callers fall back on what kill(2)
// can tell.
package proctree

import "slices"

// Proc is one process.
type Proc struct {
	PID, PPID, PGID int
	// Start is when it started, in the kernel's own unit (Linux: clock
	// ticks since boot; macOS: microseconds since the epoch): with PID, it
	// names this process and no later one given the same id.
	Start uint64
	Comm  string // its executable's name, as the kernel shortens it
	State byte   // as ps shows it: R, S, D, Z (zombie), T, …
}

// Live reports whether p runs or can run again: it is not a zombie.
func (p Proc) Live() bool { return p.State != 'Z' && p.State != 'X' }

// Descendants are the processes in procs whose chain of parents leads to
// pid, children before grandchildren.
func Descendants(procs []Proc, pid int) []Proc {
	var out []Proc
	parents := []int{pid}
	for len(parents) > 0 {
		var next []int
		for _, p := range procs {
			if slices.Contains(parents, p.PPID) && p.PID != pid {
				out = append(out, p)
				next = append(next, p.PID)
			}
		}
		parents = next
	}
	return out
}

// InGroup are the live processes of procs in process group pgid.
func InGroup(procs []Proc, pgid int) []Proc {
	var out []Proc
	for _, p := range procs {
		if p.PGID == pgid && p.Live() {
			out = append(out, p)
		}
	}
	return out
}

// StillRunning are those of procs that are still live: the same process
// (same id and start time), not a zombie. Where processes cannot be listed
// it reports none.
func StillRunning(procs []Proc) []Proc {
	now, err := List()
	if err != nil {
		return nil
	}
	var out []Proc
	for _, p := range procs {
		for _, q := range now {
			if q.PID == p.PID && q.Start == p.Start && q.Live() {
				out = append(out, q)
			}
		}
	}
	return out
}
