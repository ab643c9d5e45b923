//go:build unix

package agentproc

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/agentproc/proctree"
)

// shellAgent is `sh -c script` started as a Process, with a reader that
// delivers its stdout to the test as a relay would deliver it to a client.
type shellAgent struct {
	*Process
	out    *bufio.Reader
	status chan int // Wait's result
}

func startShellAgent(t *testing.T, script string, grace time.Duration, sigs <-chan os.Signal) *shellAgent {
	t.Helper()
	p, err := Start(context.Background(), Agent{Argv: []string{"sh", "-c", script}, Grace: grace}, nil)
	require.NoError(t, err)
	out, outW := io.Pipe()
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(outW, p.Stdout())
		outW.Close()
	}()
	a := &shellAgent{Process: p, out: bufio.NewReader(out), status: make(chan int, 1)}
	go func() { a.status <- p.Wait(sigs, read) }()
	return a
}

// line is the agent's next line of output.
func (a *shellAgent) line(t *testing.T) string {
	t.Helper()
	line, err := a.out.ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSuffix(line, "\n")
}

// waitStatus is Wait's result, once what is left of the output was read.
func (a *shellAgent) waitStatus(t *testing.T) int {
	t.Helper()
	go func() { _, _ = io.Copy(io.Discard, a.out) }()
	select {
	case status := <-a.status:
		return status
	case <-time.After(30 * time.Second):
		require.Fail(t, "Wait did not return")
		return 0
	}
}

func TestStopGivesTheAgentItsGraceThenSIGTERMThenSIGKILL(t *testing.T) {
	cases := []struct {
		name       string
		script     string
		closeStdin bool
		grace      time.Duration
		want       int
	}{
		{"an agent that exits at EOF on stdin within its grace keeps its own status",
			`echo ready; cat >/dev/null; exit 7`, true, time.Minute, 7},
		{"an agent that ignores EOF gets SIGTERM",
			`echo ready; exec sleep 60`, true, 100 * time.Millisecond, 128 + 15},
		{"an agent that ignores SIGTERM too is killed a grace later",
			`trap "" TERM; echo ready; while :; do sleep 0.01; done`, false, 100 * time.Millisecond, 128 + 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := startShellAgent(t, c.script, c.grace, nil)
			require.Equal(t, "ready", a.line(t))
			if c.closeStdin {
				require.NoError(t, a.Stdin().Close())
			}
			a.Stop("the test is done")
			assert.Equal(t, c.want, a.waitStatus(t))
		})
	}
}

func TestWaitForwardsSignalsToTheAgent(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	a := startShellAgent(t, `trap "exit 9" USR1; echo ready; while :; do sleep 0.01; done`, time.Minute, sigs)
	require.Equal(t, "ready", a.line(t))
	sigs <- syscall.SIGUSR1
	assert.Equal(t, 9, a.waitStatus(t))
}

func TestWaitDoesNotWaitForeverForAGrandchildHoldingStdoutOpen(t *testing.T) {
	a := startShellAgent(t, `sleep 60 & echo $!; exit 5`, 100*time.Millisecond, nil)
	grandchild, err := strconv.Atoi(a.line(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) })
	assert.Equal(t, 5, a.waitStatus(t), "Wait returns, with the agent's status")
}

// running reports whether process pid runs (a zombie does not).
func running(pid int) bool {
	if procs, err := proctree.List(); err == nil {
		for _, p := range procs {
			if p.PID == pid {
				return p.Live()
			}
		}
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// An npm agent is a launcher whose child is the real agent: stopping the
// launcher alone left the child running after every session.
func TestNothingTheAgentStartedOutlivesIt(t *testing.T) {
	const stubbornChild = `(trap "" TERM; while :; do sleep 0.01; done) >/dev/null & echo $!; `
	cases := []struct {
		name   string
		script string
		stop   bool
		want   int
	}{
		{"the SIGTERM step reaches the agent's child", `sleep 60 >/dev/null & echo $!; exec sleep 60`, true, 128 + 15},
		{"a child that ignores SIGTERM is killed a grace later", stubbornChild + `exec sleep 60`, true, 128 + 15},
		{"a child the agent left when it exited is stopped, and the status stays the agent's", stubbornChild + `exit 3`, false, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			started := time.Now()
			a := startShellAgent(t, c.script, 200*time.Millisecond, nil)
			child, err := strconv.Atoi(a.line(t))
			require.NoError(t, err)
			t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
			require.True(t, running(child), "the child runs")
			if c.stop {
				a.Stop("the test is done")
			}
			assert.Equal(t, c.want, a.waitStatus(t))
			assert.False(t, running(child), "the agent's child %d outlived it", child)
			assert.Less(t, time.Since(started), 10*time.Second, "nobody waited for sleep 60")
		})
	}
}

// Run from a terminal, Ctrl-C reaches the agent and its children alike;
// through the proxy it still does.
func TestForwardedSignalsReachTheAgentsChildren(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	a := startShellAgent(t, `trap "wait; exit 9" USR1; (trap "echo child got USR1; exit 0" USR1; echo ready; while :; do sleep 0.01; done) & while :; do sleep 0.01; done`, time.Minute, sigs)
	require.Equal(t, "ready", a.line(t))
	sigs <- syscall.SIGUSR1
	assert.Equal(t, "child got USR1", a.line(t))
	assert.Equal(t, 9, a.waitStatus(t))
}

// A context cancelled while the agent starts makes exec stop it at once, on
// exec's own goroutine: what that step writes to (the reaper's control
// pipe) is set before the process exists (-race found it unset).
func TestACancelWhileStartingStopsTheAgent(t *testing.T) {
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		go cancel()
		p, err := Start(ctx, Agent{Argv: []string{"sh", "-c", "sleep 30"}, Grace: 100 * time.Millisecond}, nil)
		if err != nil {
			continue // cancelled before exec started it
		}
		read := make(chan struct{})
		go func() {
			defer close(read)
			_, _ = io.Copy(io.Discard, p.Stdout())
		}()
		p.Stdin().Close()
		done := make(chan int, 1)
		go func() { done <- p.Wait(nil, read) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			require.Fail(t, "Wait did not return")
		}
	}
}
