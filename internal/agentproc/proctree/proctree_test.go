package proctree

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDescendantsFollowsParentsDownTheTree(t *testing.T) {
	procs := []Proc{
		{PID: 1, PPID: 0}, {PID: 10, PPID: 1}, {PID: 11, PPID: 10}, {PID: 12, PPID: 11},
		{PID: 20, PPID: 1}, {PID: 13, PPID: 10},
	}
	var pids []int
	for _, p := range Descendants(procs, 10) {
		pids = append(pids, p.PID)
	}
	assert.Equal(t, []int{11, 13, 12}, pids)
}

func TestInGroupLeavesOutZombies(t *testing.T) {
	procs := []Proc{{PID: 5, PGID: 5, State: 'S'}, {PID: 6, PGID: 5, State: 'Z'}, {PID: 7, PGID: 7, State: 'R'}}
	assert.Equal(t, []Proc{procs[0]}, InGroup(procs, 5))
}
