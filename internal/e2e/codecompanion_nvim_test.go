package e2e

import (
	"bytes"
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

// codecompanion.nvim's own code connects through the config doctor prints:
// in Neovim, its config reads the setup call, a chat's adapter resolves to
// the codex preset extended with doctor's command and auth_method, and its
// ACP connection reaches a session with the real codex-acp 0.16 through the
// proxy. The preset's own auth_method ("api-key") stops before one, as
// users of codex-acp 0.x saw.
//
// codecompanion's source is not installed by CI (it is on no registry CI
// reaches): set CODECOMPANION_DIR to a checkout of v19.22.0. It needs nvim
// on PATH; testdata/codecompanion/shims.lua stands in for what Neovim
// 0.8–0.11 adds that codecompanion uses, and changes nothing on 0.11.
func TestCodecompanionItselfConnectsWithDoctorsConfig(t *testing.T) {
	dir := os.Getenv("CODECOMPANION_DIR")
	if dir == "" {
		t.Skip("CODECOMPANION_DIR (a checkout of codecompanion.nvim v19.22.0) is not set: codecompanion's own connection is not run")
	}
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim not on PATH: codecompanion's own connection is not run")
	}
	agent := realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: deadURL})
	agent.Env = append(agent.Env, "CODEX_API_KEY=dummy")
	out, stderr, err := runDoctor(t, agent, "codex-acp")
	require.NoError(t, err, "stderr: %s", stderr)
	_, block, ok := strings.Cut(out, "  require(\"codecompanion\").setup({\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "\n  })\n")
	setup := "require(\"codecompanion\").setup({\n" + strings.ReplaceAll(block, "\n  ", "\n")[2:] + "\n})\n"

	t.Run("doctor's auth_method", func(t *testing.T) {
		got, err := codecompanionConnect(t, nvim, dir, agent, setup)
		require.NoError(t, err, "%s", got)
		assert.Contains(t, got, "adapter=codex\n")
		assert.Contains(t, got, "auth_method=codex-api-key\n")
		assert.Contains(t, got, "authenticated=true\n")
		assert.NotContains(t, got, "session=nil")
	})
	t.Run("the preset's auth_method", func(t *testing.T) {
		var kept []string
		for _, line := range strings.Split(setup, "\n") {
			if !strings.Contains(line, "auth_method") {
				kept = append(kept, line)
			}
		}
		got, err := codecompanionConnect(t, nvim, dir, agent, strings.Join(kept, "\n"))
		require.Error(t, err, "%s", got)
		assert.Contains(t, got, "auth_method=api-key\n")
		assert.Contains(t, got, "authenticated=false\n")
		assert.Contains(t, got, "session=nil")
	})
}

// codecompanionConnect runs testdata/codecompanion/connect.lua in a
// headless nvim on setup, in agent's environment, and returns what it said.
func codecompanionConnect(t *testing.T, nvim, dir string, agent *realagent.Agent, setup string) (string, error) {
	t.Helper()
	snippet := filepath.Join(t.TempDir(), "init.lua")
	require.NoError(t, os.WriteFile(snippet, []byte(setup), 0o644))
	here, err := filepath.Abs(filepath.Join("testdata", "codecompanion"))
	require.NoError(t, err)
	cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+filepath.Join(here, "connect.lua"))
	cmd.Dir = agent.Dir
	cmd.Env = append(withPath(agent.Env, filepath.Join(nodeModules(t, agent), ".bin")),
		"CODECOMPANION_DIR="+dir, "SNIPPET="+snippet, "SHIMS="+filepath.Join(here, "shims.lua"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	procgroup.Set(cmd)
	require.NoError(t, cmd.Start())
	// Neovim stops the proxy it started, and the proxy the agent.
	checkLeft := procgroup.Watch(t, cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = procgroup.Signal(cmd.Process.Pid, 9)
		err = <-done
		t.Errorf("nvim did not end within 2 minutes")
	}
	checkLeft()
	return out.String(), err
}
