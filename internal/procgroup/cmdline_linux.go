package procgroup

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Running are the live processes whose command line is argv, from /proc:
// how a test finds what an agent started where it cannot ask the agent,
// by a command line no other process has (`sleep 402917`).
func Running(argv ...string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(strings.Join(argv, "\x00") + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Equal(cmdline, want) && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
