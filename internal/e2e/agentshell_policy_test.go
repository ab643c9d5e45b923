package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agent-shell itself (Emacs 29.1 or later, as TestAgentShellItselfRunsARealSessionThroughDoctorsConfig
// finds it) on doctor's config with the issue's policy added, before a real codex-acp 0.16 in
// its untrusted mode, which asks before each command: the model runs npm test, then a git push
// that would leave a mark if it ran. The user is asked about neither: npm test runs, the push is
// refused before it runs, and the shell buffer shows the refused call with the rule that
// refused it. With unified exec, codex asks before it announces the call: the proxy's note is
// then the call's tool_call, drawn as the others are.
func TestAgentShellShowsThePolicysDecisions(t *testing.T) {
	for _, unified := range []bool{false, true} {
		t.Run(map[bool]string{false: "shell", true: "unified-exec"}[unified], func(t *testing.T) {
			agentShellUnderPolicy(t, unified)
		})
	}
}

func agentShellUnderPolicy(t *testing.T, unified bool) {
	dir, emacs := editorCheckout(t, "AGENT_SHELL_DIR", "a checkout of xenodium/agent-shell", "emacs", "agent-shell itself")
	deps := map[string]string{}
	for _, env := range []string{"ACP_EL_DIR", "SHELL_MAKER_DIR"} {
		deps[env], _ = editorCheckout(t, env, "a checkout of agent-shell's dependency", "emacs", "agent-shell itself")
	}
	requireEmacs(t, emacs, 29, 1, "agent-shell itself")
	here, err := filepath.Abs(filepath.Join("testdata", "agent-shell", "shell.el"))
	require.NoError(t, err)

	s := launch(t, "codex-0.16", []string{"npm test", "git push origin main || touch pushed"}, unified, "untrusted")
	project := s.agent.Dir
	require.NoError(t, os.WriteFile(filepath.Join(project, "package.json"),
		[]byte(`{"name":"p","version":"1.0.0","scripts":{"test":"touch tested"}}`), 0o644))
	pol := filepath.Join(t.TempDir(), "p.policy")
	require.NoError(t, os.WriteFile(pol, []byte(issuePolicy), 0o644))
	out, stderr, err := runDoctor(t, s.agent, "codex-acp")
	require.NoError(t, err, "stderr: %s", stderr)
	setq := strings.TrimSpace(lineStarting(t, out, "  (setq agent-shell-openai-codex-acp-command"))
	withPolicy := strings.Replace(setq, `"--"`, `"--policy" "`+pol+`" "--"`, 1)
	require.NotEqual(t, setq, withPolicy)
	config := filepath.Join(t.TempDir(), "config.el")
	require.NoError(t, os.WriteFile(config, []byte(withPolicy+"\n"), 0o644))
	env := append(withPath(s.agent.Env, filepath.Join(nodeModules(t, s.agent), ".bin")),
		"AGENT_SHELL_DIR="+dir, "ACP_EL_DIR="+deps["ACP_EL_DIR"], "SHELL_MAKER_DIR="+deps["SHELL_MAKER_DIR"],
		"CONFIG="+config, "PROMPT=run the tests, then push", "WAIT=150", "EXPAND=1", "npm_config_update_notifier=false")
	shown := agentShell(t, emacs, here, project, env)

	assert.FileExists(t, filepath.Join(project, "tested"), "npm test ran")
	assert.NoFileExists(t, filepath.Join(project, "pushed"), "the push never ran")
	assert.NotContains(t, shown.buffer, "Allow", "the user was asked nothing")
	assert.Contains(t, shown.visible, "denied by the policy (line 2: deny Bash(git push:*)): git push origin main",
		"the refused call, with its rule, as the user sees it")
	assert.Regexp(t, `\[✗\]\S* git push origin main`, shown.visible, "the refused call has a title, and failed")
}
