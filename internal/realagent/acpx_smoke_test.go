package realagent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	run, err := realagent.RunAcpx(t, agent.Env, agent.Dir, 2*time.Minute,
		"--approve-all", "--format", "text", "--cwd", agent.Dir,
		"--agent", agent.Argv[0], // acpx splits this string into a command line
		"exec", "print five lines")
	t.Logf("acpx took %v", run.Took.Round(time.Millisecond))
	require.NoError(t, err, "acpx\nstdout:\n%s\nstderr:\n%s", run.Stdout, run.Stderr)
	// acpx indents tool output; compare trimmed lines.
	var lines []string
	for l := range strings.Lines(run.Stdout) {
		lines = append(lines, strings.TrimSpace(l))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{strings.TrimSuffix(fiveLinesOutput, "\n"), "[done] end_turn"} {
		assert.Contains(t, got, want, "acpx stdout lacks %q:\n%s\nstderr:\n%s", want, run.Stdout, run.Stderr)
	}
}
