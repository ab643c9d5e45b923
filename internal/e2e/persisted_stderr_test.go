package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// stderrLine is what stderrCommand writes to stderr, after its output.
const stderrLine = "warning: on stderr"

// stderrCommand prints persistedLines numbered lines, more than the Claude
// CLI shows, then writes to stderr.
func stderrCommand() string { return linesCommand(persistedLines) + "; echo '" + stderrLine + "' >&2" }

// TestPersistedOutputClaude101Stderr runs claude-agent-acp 0.101 with a
// command that writes to stdout and stderr through --terminal-output
// --expand-persisted-output: the CLI merges stderr into stdout in the
// order written, clips the merged text and saves all of it, so the client
// shows every line and the stderr line after them, once.
func TestPersistedOutputClaude101Stderr(t *testing.T) {
	for _, zed := range []bool{false, true} {
		t.Run(fmt.Sprintf("zed=%v", zed), func(t *testing.T) {
			if zed && os.Getenv("E2E_REPORT") == "" {
				t.Skip("one more claude run; set E2E_REPORT to run it")
			}
			model := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{stderrCommand()}})
			agent := realagent.Claude(t, realagent.ClaudeOptions{Version: "0.101", ModelURL: model.URL()})
			run := runSaved(t, agent, zed, []string{"--terminal-output", "--expand-persisted-output"}, fmt.Sprintf("line %d", persistedLines))
			if t.Failed() {
				return
			}
			shown := run.view.shown(run.view.only(t))
			all := map[int]bool{}
			for i := 1; i <= persistedLines; i++ {
				all[i] = true
			}
			checkLines(t, "client", shown, all)
			n := strings.Count(shown, stderrLine)
			if assert.Equal(t, 1, n, "the stderr line is shown %d times, last: %v", n, strings.HasSuffix(strings.TrimRight(shown, "\n"), stderrLine)) {
				assert.True(t, strings.HasSuffix(strings.TrimRight(shown, "\n"), stderrLine), "the stderr line is shown %d times, last: %v", n, strings.HasSuffix(strings.TrimRight(shown, "\n"), stderrLine))
			}
			if zed {
				assert.Equal(t, 1, run.whole, "the whole output travels once")
			} else if assert.Positive(t, run.whole) {
				// and once more in the final update, for agent-shell's reading
				assert.LessOrEqual(t, run.whole, 2)
			}
		})
	}
}
