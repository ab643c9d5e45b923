package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestPersistedOutputClaude101ClipEdges runs claude-agent-acp 0.101 with outputs whose clip the
// CLI changes before the agent shows it: blank lines first (dropped), and a cut inside a
// character (shown as U+FFFD), 2 bytes (é) and 4 (😀). With --expand-persisted-output a plain
// client shows the whole output, exactly.
func TestPersistedOutputClaude101ClipEdges(t *testing.T) {
	for _, c := range []struct {
		name, command, output string
	}{
		{"blank lines first", "printf ' \\n\\t\\n'; seq 1 10000", " \n\t\n" + seqLines(1, 10000)},
		{"cut inside é", "for i in $(seq 400); do printf '%0100d\\n' 0 | sed 's/0/é/g'; done", strings.Repeat(strings.Repeat("é", 100)+"\n", 400)},
		{"cut inside 😀", "for i in $(seq 400); do printf '%0100d\\n' 0 | sed 's/0/😀/g'; done", strings.Repeat(strings.Repeat("😀", 100)+"\n", 400)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("a real agent's run; skipped with -short")
			}
			model := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{c.command}})
			agent := realagent.Claude(t, realagent.ClaudeOptions{Version: "0.101", ModelURL: model.URL()})
			last := c.output[strings.LastIndexByte(strings.TrimRight(c.output, "\n"), '\n')+1:]
			run := runSaved(t, agent, false, expandFlags, strings.TrimRight(last, "\n"))
			if t.Failed() {
				return
			}
			shown := run.view.shown(run.view.only(t))
			assert.NotContains(t, shown, "[Output truncated", "the clip was not expanded")
			assert.Equal(t, strings.TrimRight(c.output, "\n"), strings.TrimRight(shown, "\n"), "what the client shows")
		})
	}
}

// seqLines is what seq first last prints.
func seqLines(first, last int) string {
	var b strings.Builder
	for i := first; i <= last; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}
