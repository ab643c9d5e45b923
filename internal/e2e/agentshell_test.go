package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/procgroup"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// agent-shell's ACP layer, acp.el, starts the command doctor prints for
// agent-shell as agent-shell starts Codex (the variable's car, its cdr as
// arguments; login authentication, which sends no authenticate) and gets a
// session from the real codex-acp 0.16 through the proxy. acp.el needs
// Emacs 28.1; agent-shell itself needs 29.1, newer than Debian 12's.
//
// acp.el is not installed by CI (it is on no registry CI reaches): set
// ACP_EL_DIR to a checkout (v0.12.2 was run). It needs emacs on PATH.
func TestAgentShellACPLayerConnectsWithDoctorsConfig(t *testing.T) {
	dir, emacs := editorCheckout(t, "ACP_EL_DIR", "a checkout of xenodium/acp.el", "emacs", "agent-shell's ACP layer")
	agent := realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: deadURL})
	out, stderr, err := runDoctor(t, agent, "codex-acp")
	require.NoError(t, err, "stderr: %s", stderr)
	config := filepath.Join(t.TempDir(), "config.el")
	require.NoError(t, os.WriteFile(config, []byte(strings.TrimSpace(lineStarting(t, out, "  (setq agent-shell-openai-codex-acp-command"))+"\n"), 0o644))
	here, err := filepath.Abs(filepath.Join("testdata", "agent-shell", "connect.el"))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q", "-l", here)
	cmd.Dir = agent.Dir
	cmd.Env = append(withPath(agent.Env, filepath.Join(nodeModules(t, agent), ".bin")), "ACP_EL_DIR="+dir, "CONFIG="+config)
	var got bytes.Buffer
	cmd.Stdout, cmd.Stderr = &got, &got
	cmd.WaitDelay = 10 * time.Second
	procgroup.Set(cmd)
	require.NoError(t, cmd.Start())
	// acp.el stops the proxy it started, and the proxy the agent.
	checkLeft := procgroup.Watch(t, cmd.Process.Pid)
	err = cmd.Wait()
	checkLeft()
	require.NoError(t, err, "%s", got.String())
	assert.Contains(t, got.String(), "agent=codex-acp\n")
	assert.Regexp(t, `session=[0-9a-f-]{36}\n`, got.String())
}

// agent-shell itself, in Emacs 29.1 or later, runs a real Codex session
// through the proxy on the config doctor prints: it starts the shell as
// M-x agent-shell-openai-start-codex does, the user's prompt makes the
// model (the mock) run a command in codex-acp 0.16, and the shell buffer
// shows the call collapsed to its title, with the command's output in it,
// and the answer.
//
// agent-shell, acp.el and shell-maker are not installed by CI: they are on
// no registry CI reaches (no Debian package ships them, not even in
// bookworm-backports, and no npm package does). Set AGENT_SHELL_DIR,
// ACP_EL_DIR and SHELL_MAKER_DIR to checkouts (agent-shell 0.63.6, acp.el
// 0.14.2, shell-maker 0.97.2 were run); emacs on PATH must be 29.1 or later
// (Debian 12's is 28.2; bookworm-backports has 30.1).
func TestAgentShellItselfRunsARealSessionThroughDoctorsConfig(t *testing.T) {
	dir, emacs := editorCheckout(t, "AGENT_SHELL_DIR", "a checkout of xenodium/agent-shell", "emacs", "agent-shell itself")
	deps := map[string]string{}
	for _, env := range []string{"ACP_EL_DIR", "SHELL_MAKER_DIR"} {
		deps[env], _ = editorCheckout(t, env, "a checkout of agent-shell's dependency", "emacs", "agent-shell itself")
	}
	requireEmacs(t, emacs, 29, 1, "agent-shell itself")
	const output = "hello from a real agent"
	here, err := filepath.Abs(filepath.Join("testdata", "agent-shell", "shell.el"))
	require.NoError(t, err)
	// Each run is a first session in a new project (with one before,
	// agent-shell would offer to resume it).
	run := func(expand string, noFlags bool) agentShellRun {
		s := launch(t, "codex-0.16", []string{"printf '" + output + "\\n'"}, false, "")
		out, stderr, err := runDoctor(t, s.agent, "codex-acp")
		require.NoError(t, err, "stderr: %s", stderr)
		setq := strings.TrimSpace(lineStarting(t, out, "  (setq agent-shell-openai-codex-acp-command"))
		require.Contains(t, setq, `"--shell-to-patch" "--terminal-output" "--"`, "doctor's flags for codex-acp 0.16")
		if noFlags {
			setq = strings.Replace(setq, `"--shell-to-patch" "--terminal-output" `, "", 1)
		}
		config := filepath.Join(t.TempDir(), "config.el")
		require.NoError(t, os.WriteFile(config, []byte(setq+"\n"), 0o644))
		env := append(withPath(s.agent.Env, filepath.Join(nodeModules(t, s.agent), ".bin")),
			"AGENT_SHELL_DIR="+dir, "ACP_EL_DIR="+deps["ACP_EL_DIR"], "SHELL_MAKER_DIR="+deps["SHELL_MAKER_DIR"],
			"CONFIG="+config, "PROMPT=say hello", "WAIT=120", "EXPAND="+expand)
		return agentShell(t, emacs, here, s.agent.Dir, env)
	}

	// Collapsed, as it starts: the call is its title line; its body holds
	// the command and its output, each in a fenced block.
	collapsed := run("", false)
	assert.Contains(t, collapsed.visible, "Codex> say hello")
	assert.Contains(t, collapsed.visible, "▶ Ran a command\n", "the call's title line")
	assert.NotContains(t, collapsed.visible, output, "collapsed: agent-shell-tool-use-expand-by-default is nil")
	assert.Contains(t, collapsed.visible, mockmodel.DefaultAnswer, "the model's answer")
	assert.Contains(t, collapsed.buffer, "```sh\n"+output+"\n```", "the command's output, in the call's body")

	// Expanded: the command, then its output.
	expanded := run("1", false)
	assert.Contains(t, expanded.visible, "[run] printf '"+output+"\\n'")
	assert.Contains(t, expanded.visible, output+"\n")

	// Without doctor's flags, a command this short shows the same once it
	// has ended (what the flags change is the output while one runs).
	bare := run("1", true)
	assert.Contains(t, bare.visible, "[run] printf '"+output+"\\n'")
	assert.Contains(t, bare.visible, output+"\n")
}

// agentShellRun is what agent-shell's buffer held after the turn: its
// text, and the part that is not invisible.
type agentShellRun struct{ buffer, visible string }

// agentShell runs testdata/agent-shell/shell.el in emacs, in dir with env.
func agentShell(t *testing.T, emacs, script, dir string, env []string) agentShellRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q", "-l", script)
	cmd.Dir, cmd.Env = dir, env
	var got bytes.Buffer
	cmd.Stdout, cmd.Stderr = &got, &got
	cmd.WaitDelay = 10 * time.Second
	procgroup.Set(cmd)
	require.NoError(t, cmd.Start())
	// acp.el stops the proxy it started, and the proxy the agent.
	checkLeft := procgroup.Watch(t, cmd.Process.Pid)
	err := cmd.Wait()
	checkLeft()
	require.NoError(t, err, "%s", got.String())
	t.Logf("what agent-shell showed:\n%s", got.String())
	assert.Regexp(t, `session=\S+\n`, got.String())
	_, buffer, ok := strings.Cut(got.String(), "=== buffer\n")
	require.True(t, ok, "%s", got.String())
	buffer, visible, ok := strings.Cut(buffer, "\n=== visible\n")
	require.True(t, ok)
	visible, _, _ = strings.Cut(visible, "\n=== end\n")
	return agentShellRun{buffer, visible}
}

// requireEmacs skips (what is not run) unless emacs is at least
// major.minor.
func requireEmacs(t *testing.T, emacs string, major, minor int, what string) {
	t.Helper()
	b, err := exec.Command(emacs, "--batch", "--eval", "(princ emacs-version)").Output()
	require.NoError(t, err)
	var ma, mi int
	_, err = fmt.Sscanf(string(b), "%d.%d", &ma, &mi)
	require.NoError(t, err, "emacs-version %q", b)
	if ma < major || (ma == major && mi < minor) {
		t.Skipf("%s needs Emacs %d.%d or later; %s is %s: %s is not run", what, major, minor, emacs, b, what)
	}
}

// editorCheckout is the source checkout the variable env names and the
// program that runs it, found on PATH; without either, the test of what
// (an editor's code no registry CI reaches provides) skips, saying why.
func editorCheckout(t *testing.T, env, checkout, program, what string) (dir, path string) {
	t.Helper()
	dir = os.Getenv(env)
	if dir == "" {
		t.Skipf("%s (%s) is not set: %s is not run", env, checkout, what)
	}
	path, err := exec.LookPath(program)
	if err != nil {
		t.Skipf("%s not on PATH: %s is not run", program, what)
	}
	return dir, path
}
