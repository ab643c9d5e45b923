//go:build linux

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/procgroup"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// sessionEnds are the ways an editor's session with the proxy ends while a
// turn runs.
var sessionEnds = []struct {
	name string
	end  func(c *acpclient.Client) error
}{
	{"the editor is killed", func(c *acpclient.Client) error { return c.EditorDies() }},
	{"the editor closes stdin", func(c *acpclient.Client) error { return c.CloseStdin() }},
	{"the proxy gets SIGTERM", func(c *acpclient.Client) error { return syscall.Kill(c.PID(), syscall.SIGTERM) }},
	{"the proxy is killed", func(c *acpclient.Client) error { return syscall.Kill(c.PID(), syscall.SIGKILL) }},
}

// TestNothingCodexStartedOutlivesTheSession runs a turn whose command is
// `sleep A & sleep B` through the proxy and ends the session while it
// runs, every way a session ends, with codex-acp 0.16 (its shell_command
// tool, and exec_command on a PTY) and 2.6. codex runs each command in a
// session of its own (setsid), out of reach of any signal to the agent's
// process group: before the proxy's reaper, both sleeps ran on, reparented
// to init (0.16 every way; 2.6 when the proxy was killed).
func TestNothingCodexStartedOutlivesTheSession(t *testing.T) {
	agents := []struct {
		version string
		unified bool // the model's shell tool is exec_command, on a PTY
	}{{"0.16", false}, {"0.16", true}, {"2.6", false}}
	for _, ag := range agents {
		for _, end := range sessionEnds {
			name := ag.version
			if ag.unified {
				name += "-exec_command"
			}
			t.Run(name+"/"+end.name, func(t *testing.T) {
				t.Parallel()
				// Durations no other process has: the test finds the sleeps
				// by their command lines.
				a := 100_000 + 2*rand.IntN(400_000)
				sleeps := [][]string{{"sleep", strconv.Itoa(a)}, {"sleep", strconv.Itoa(a + 1)}}
				t.Cleanup(func() { killAll(sleeps) })
				model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{fmt.Sprintf("sleep %d & sleep %d", a, a+1)}})
				agent := realagent.Codex(t, ag.version, realagent.CodexOptions{ModelBaseURL: model.BaseURL(), UnifiedExec: ag.unified})
				log := filepath.Join(t.TempDir(), "proxy.log")
				c := acpclient.Start(t, acpclient.Options{
					Argv: append([]string{proxyBin(t), "--grace", "1s", "--log-file", log, "--"}, agent.Argv...),
					Env:  agent.Env, Dir: agent.Dir,
				})
				c.Initialize()
				c.Send("session/prompt", map[string]any{
					"sessionId": c.NewSession(agent.Dir),
					"prompt":    []any{map[string]any{"type": "text", "text": "run the sleeps"}},
				})
				require.Eventually(t, func() bool { return running(sleeps) == 2 }, time.Minute, 50*time.Millisecond,
					"the turn's sleeps never both ran\n%s", c.Report())

				require.NoError(t, end.end(c))
				select {
				case <-c.Exited():
				case <-time.After(30 * time.Second):
					require.Fail(t, "the proxy did not exit", "%s", c.Report())
				}
				if !assert.Eventually(t, func() bool { return running(sleeps) == 0 }, 15*time.Second, 50*time.Millisecond,
					"the turn's sleeps outlived the session") {
					b, _ := os.ReadFile(log)
					t.Logf("proxy log:\n%s", b)
				}
			})
		}
	}
}

// running is how many processes run each of argvs.
func running(argvs [][]string) int {
	n := 0
	for _, argv := range argvs {
		n += len(procgroup.Running(argv...))
	}
	return n
}

// killAll kills every process that runs one of argvs, so that a failing
// test leaves nothing behind.
func killAll(argvs [][]string) {
	for _, argv := range argvs {
		for _, pid := range procgroup.Running(argv...) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
