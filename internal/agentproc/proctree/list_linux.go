package proctree

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// List is every process of the system, from /proc. A process that ends
// while it is read is left out.
func List() ([]Proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	procs := make([]Proc, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		if p, ok := parseStat(pid, stat); ok {
			procs = append(procs, p)
		}
	}
	return procs, nil
}

// parseStat reads /proc/PID/stat: "pid (comm) state ppid pgrp session tty
// tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
// priority nice threads itrealvalue starttime …". comm may hold spaces and
// parentheses, so the fields are counted from its last ")".
func parseStat(pid int, stat []byte) (Proc, bool) {
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Proc{}, false
	}
	f := bytes.Fields(stat[end+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, PGID: pgid, Start: start, Comm: string(stat[open+1 : end]), State: f[0][0]}, true
}
