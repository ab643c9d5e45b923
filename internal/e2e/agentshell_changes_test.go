package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
)

// TestShowChangesInAgentShell runs agent-shell itself (Emacs 29.1 or
// later, the checkouts AGENT_SHELL_DIR, ACP_EL_DIR and SHELL_MAKER_DIR name,
// as TestAgentShellItselfRunsARealSessionThroughDoctorsConfig) on real
// agents behind --show-changes: the python write and the copy the model
// asks for are each drawn as a diff in the body of the call that made it,
// once, and no call of the proxy's own is drawn.
func TestShowChangesInAgentShell(t *testing.T) {
	dir, emacs := editorCheckout(t, "AGENT_SHELL_DIR", "a checkout of xenodium/agent-shell", "emacs", "agent-shell itself")
	deps := map[string]string{}
	for _, env := range []string{"ACP_EL_DIR", "SHELL_MAKER_DIR"} {
		deps[env], _ = editorCheckout(t, env, "a checkout of agent-shell's dependency", "emacs", "agent-shell itself")
	}
	requireEmacs(t, emacs, 29, 1, "agent-shell itself")
	here, err := filepath.Abs(filepath.Join("testdata", "agent-shell", "shell.el"))
	require.NoError(t, err)
	for _, agent := range []string{"codex-0.16", "codex-2.6", "claude-0.101"} {
		t.Run(agent, func(t *testing.T) {
			s := launch(t, agent, showChangesCommands, false, "")
			require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, "a.txt"), []byte("alpha\n"), 0o644))
			gitCommitAll(t, s.agent.Dir)
			variable, start := "agent-shell-openai-codex-acp-command", "codex"
			if strings.HasPrefix(agent, "claude") {
				variable, start = "agent-shell-anthropic-claude-acp-command", "claude"
			}
			var words []string
			for _, w := range append([]string{proxyBin(t), "--show-changes", "--"}, s.agent.Argv...) {
				words = append(words, fmt.Sprintf("%q", w))
			}
			config := filepath.Join(t.TempDir(), "config.el")
			require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf("(setq %s '(%s))\n", variable, strings.Join(words, " "))), 0o644))
			env := append(withPath(s.agent.Env, filepath.Join(nodeModules(t, s.agent), ".bin")),
				"AGENT_SHELL_DIR="+dir, "ACP_EL_DIR="+deps["ACP_EL_DIR"], "SHELL_MAKER_DIR="+deps["SHELL_MAKER_DIR"],
				"CONFIG="+config, "PROMPT=run the commands", "WAIT=150", "EXPAND=1", "START="+start)
			got := agentShell(t, emacs, here, s.agent.Dir, env)
			buffer := got.buffer
			answer := strings.LastIndex(buffer, mockmodel.DefaultAnswer)
			require.Positive(t, answer, "the turn's answer")
			python, cp := strings.Index(buffer, "py.txt','w')"), strings.Index(buffer, "cp a.txt b.txt")
			require.True(t, python >= 0 && cp > python, "the two calls, in order")
			for _, d := range []struct {
				text     string
				from, to int
			}{
				{"+from python", python, cp},
				{"+alpha", cp, answer},
			} {
				assert.Equal(t, 1, strings.Count(buffer, d.text), "%s drawn once", d.text)
				i := strings.Index(buffer, d.text)
				assert.True(t, i > d.from && i < d.to, "%s is drawn in the body of the call that made it", d.text)
			}
			assert.NotContains(t, buffer, "Files changed by", "no call of the proxy's own")
		})
	}
}
