package realagent_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestAcpxAroundCodex runs acpx, a real headless client, as a one-shot
// `acpx --agent <codex-acp> exec <prompt>` and checks it prints the
// command's output and the end of the turn.
func TestAcpxAroundCodex(t *testing.T) {
	t.Parallel()
	model := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{fiveLines}})
	agent := realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: model.BaseURL()})
	argv := append(realagent.Acpx(t),
		"--approve-all", "--format", "text", "--cwd", agent.Dir,
		"--agent", agent.Argv[0], // acpx splits this string into a command line
		"exec", "print five lines")

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// acpx keeps a session store under HOME: the agent's private HOME.
	cmd.Env, cmd.Dir = agent.Env, agent.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	// acpx ends codex itself; this only catches stragglers of the group.
	if killErr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); killErr != nil && !errors.Is(killErr, syscall.ESRCH) {
		t.Logf("kill acpx process group: %v", killErr)
	}
	t.Logf("acpx took %v", time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("acpx: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// acpx indents tool output; compare trimmed lines.
	var lines []string
	for l := range strings.Lines(stdout.String()) {
		lines = append(lines, strings.TrimSpace(l))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{strings.TrimSuffix(fiveLinesOutput, "\n"), "[done] end_turn"} {
		if !strings.Contains(got, want) {
			t.Errorf("acpx stdout lacks %q:\n%s\nstderr:\n%s", want, stdout.String(), stderr.String())
		}
	}
}
