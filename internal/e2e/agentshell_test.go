package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
