//go:build linux || darwin

package proctree

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListFindsAChildAndSeesItGo(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	procs, err := List()
	require.NoError(t, err)
	kids := Descendants(procs, os.Getpid())
	var child *Proc
	for i := range kids {
		if kids[i].PID == cmd.Process.Pid {
			child = &kids[i]
		}
	}
	require.NotNil(t, child, "the child is listed")
	assert.Equal(t, "sleep", child.Comm)
	assert.Equal(t, os.Getpid(), child.PPID)
	assert.NotZero(t, child.Start)
	assert.Len(t, StillRunning([]Proc{*child}), 1)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.Empty(t, StillRunning([]Proc{*child}))
}
