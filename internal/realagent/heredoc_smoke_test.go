package realagent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// TestHeredocWriteThroughAgents: a `cat > f <<'EOF'` script from the mock
// model really writes the file in the session cwd, through each agent.
func TestHeredocWriteThroughAgents(t *testing.T) {
	const content = "package main\n\nfunc main() { println(\"$HOME `x`\") }\n"
	script := mockmodel.HeredocWrite("main.go", content)
	for _, tc := range []struct {
		name  string
		agent func(t *testing.T) *realagent.Agent
	}{
		{"codex-0.16", func(t *testing.T) *realagent.Agent {
			m := mockmodel.NewResponses(t, mockmodel.Script{Commands: []string{script}})
			return realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: m.BaseURL()})
		}},
		{"claude-0.23.1", func(t *testing.T) *realagent.Agent {
			m := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{script}})
			return realagent.Claude(t, realagent.ClaudeOptions{ModelURL: m.URL()})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := tc.agent(t)
			c := acpclient.Run(t, clientOptions(a, clients[1]), "write main.go")
			got, err := os.ReadFile(filepath.Join(a.Dir, "main.go"))
			if assert.NoError(t, err, c.Report()) {
				assert.Equal(t, content, string(got), "main.go\n%s", c.Report())
			}
			n := len(c.ToolCalls())
			assert.Equal(t, 1, n, "got %d tool calls, want 1", n)
		})
	}
}
