//go:build unix

package proxy

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type runResult struct {
	status int
	err    error
}

// startShellAgent runs `sh -c script` as the agent of a plain relay whose
// client never closes stdin, and returns the client's view of the agent's
// stdout and, once Run returns, its result.
func startShellAgent(t *testing.T, ctx context.Context, script string) (*bufio.Reader, <-chan runResult) {
	t.Helper()
	clientIn, _ := io.Pipe() // the client stays: stdin never ends
	out, outW := io.Pipe()
	done := make(chan runResult, 1)
	go func() {
		status, err := (&Relay{}).Run(ctx, Agent{Argv: []string{"sh", "-c", script}, Grace: 100 * time.Millisecond}, clientIn, outW, nil)
		outW.Close()
		done <- runResult{status, err}
	}()
	return bufio.NewReader(out), done
}

func TestCancellingRunStopsTheAgentAndReturnsItsStatus(t *testing.T) {
	cases := []struct {
		name   string
		script string
		want   int
	}{
		{"an agent that stops on SIGTERM", `echo ready; exec sleep 60`, 128 + 15},
		{"an agent that ignores SIGTERM is killed a grace later", `trap "" TERM; echo ready; while :; do sleep 0.01; done`, 128 + 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out, done := startShellAgent(t, ctx, c.script)
			line, err := out.ReadString('\n')
			require.NoError(t, err)
			assert.Equal(t, "ready\n", line, "what the agent wrote before is delivered")
			cancel()
			go func() { _, _ = io.Copy(io.Discard, out) }()
			select {
			case r := <-done:
				require.NoError(t, r.err)
				assert.Equal(t, c.want, r.status)
			case <-time.After(10 * time.Second):
				require.Fail(t, "Run did not return after its context was cancelled")
			}
		})
	}
}

func TestRunReturnsTheAgentsStatusAsAShellDoes(t *testing.T) {
	cases := []struct {
		script string
		want   int
	}{
		{`exit 0`, 0},
		{`exit 3`, 3},
		{`kill -TERM $$`, 128 + 15},
		{`kill -KILL $$`, 128 + 9},
	}
	for _, c := range cases {
		_, done := startShellAgent(t, context.Background(), c.script)
		r := <-done
		require.NoError(t, r.err, c.script)
		assert.Equal(t, c.want, r.status, c.script)
	}
}

func TestRunReportsAnAgentThatCannotStartAsAStartError(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := (&Relay{}).Run(context.Background(), Agent{Argv: []string{"no-such-agent"}}, nil, io.Discard, nil)
	var se *StartError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 127, se.Code)
	assert.Equal(t, "no-such-agent: command not found", se.Error())
}
