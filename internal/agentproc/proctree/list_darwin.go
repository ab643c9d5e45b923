package proctree

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// List is every process of the system, from the kernel's process table
// (sysctl kern.proc.all, as ps reads it).
func List() ([]Proc, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	procs := make([]Proc, 0, len(kps))
	for _, kp := range kps {
		t := kp.Proc.P_starttime
		procs = append(procs, Proc{
			PID:   int(kp.Proc.P_pid),
			PPID:  int(kp.Eproc.Ppid),
			PGID:  int(kp.Eproc.Pgid),
			Start: uint64(t.Sec)*1_000_000 + uint64(t.Usec),
			Comm:  unix.ByteSliceToString(kp.Proc.P_comm[:]),
			State: darwinState(kp.Proc.P_stat),
		})
	}
	return procs, nil
}

// darwinState is a process's p_stat (sys/proc.h) as ps shows it.
func darwinState(stat int8) byte {
	switch stat {
	case 1: // SIDL: being created
		return 'I'
	case 2: // SRUN
		return 'R'
	case 4: // SSTOP
		return 'T'
	case 5: // SZOMB
		return 'Z'
	}
	return 'S' // SSLEEP
}
