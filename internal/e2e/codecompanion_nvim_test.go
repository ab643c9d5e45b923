package e2e

import (
	"bytes"
	"context"
	"encoding/json"
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
	dir, nvim := editorCheckout(t, "CODECOMPANION_DIR", "a checkout of codecompanion.nvim v19.22.0", "nvim", "codecompanion's own connection")
	agent := realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: deadURL})
	agent.Env = append(agent.Env, "CODEX_API_KEY=dummy")
	out, stderr, err := runDoctor(t, agent, "codex-acp")
	require.NoError(t, err, "stderr: %s", stderr)
	setup := codecompanionSetupCall(t, out)

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

// What codecompanion's chat shows of a session, by its own formatter, with
// the filters and without: a recorded session replayed through the flags,
// each tool call's line. Of the filters, only --shell-to-patch changes the
// line; --terminal-output changes what reaches it, which shows only in the
// verbose_output line.
func TestCodecompanionShowsWhatOnlyShellToPatchChanges(t *testing.T) {
	dir, nvim := editorCheckout(t, "CODECOMPANION_DIR", "a checkout of codecompanion.nvim v19.22.0", "nvim", "codecompanion's formatter")
	shows := func(t *testing.T, trace string, flags ...string) map[string]codecompanionLine {
		return codecompanionShows(t, nvim, dir, trace, flags...)
	}

	t.Run("a heredoc write, codex-acp 0.13", func(t *testing.T) {
		bare, patched := shows(t, "codex-0.13-plain-heredoc.jsonl"), shows(t, "codex-0.13-plain-heredoc.jsonl", "--shell-to-patch")
		assert.True(t, strings.HasPrefix(bare["call_mock_1"].line, "Execute: cat > hello.py"), "%q", bare["call_mock_1"].line)
		assert.False(t, bare["call_mock_1"].edited)
		assert.Regexp(t, `^Edit: /\S+/hello\.py$`, patched["call_mock_1"].line)
		assert.True(t, patched["call_mock_1"].edited, "FileEdited: the file joins the agent's edits")
		// v19.22's verbose summary of a diff reads oldText as a string; a new
		// file's is null, and its handler shows this instead (so it does for
		// an agent's own edit that creates a file).
		assert.Equal(t, "[Error formatting tool output]", patched["call_mock_1"].verbose)
	})
	t.Run("command output, codex-acp 2.6", func(t *testing.T) {
		bare, streamed := shows(t, "codex-2.6-plain-5.jsonl"), shows(t, "codex-2.6-plain-5.jsonl", "--terminal-output")
		require.NotEmpty(t, bare)
		for id, call := range bare {
			assert.Equal(t, call.line, streamed[id].line, "the line is the same: codecompanion shows no output")
		}
		var more int
		for id, call := range streamed {
			if call.verbose != bare[id].verbose {
				more++
				assert.Contains(t, call.verbose, " — ", "verbose_output adds the output")
			}
		}
		assert.Positive(t, more, "with verbose_output, a command's line shows its output")
	})
}

// codecompanionLine is what codecompanion's chat shows of one tool call.
type codecompanionLine struct {
	line, verbose string
	edited        bool
}

// codecompanionShows replays trace (in testdata/traces) through flags and
// runs testdata/codecompanion/shows.lua on the tool-call updates the
// client would receive.
func codecompanionShows(t *testing.T, nvim, dir, trace string, flags ...string) map[string]codecompanionLine {
	t.Helper()
	replayed, err := exec.Command(proxyBin(t), append(append([]string{"replay"}, flags...), filepath.Join(tracesDir(t), trace))...).Output()
	require.NoError(t, err)
	var updates bytes.Buffer
	for line := range bytes.Lines(replayed) {
		var rec struct {
			Dir string
			Msg struct {
				Params struct{ Update json.RawMessage }
			}
		}
		require.NoError(t, json.Unmarshal(line, &rec))
		var kind struct{ SessionUpdate string }
		if rec.Dir != "agent->client" || json.Unmarshal(rec.Msg.Params.Update, &kind) != nil {
			continue
		}
		if kind.SessionUpdate == "tool_call" || kind.SessionUpdate == "tool_call_update" {
			updates.Write(append(rec.Msg.Params.Update, '\n'))
		}
	}
	file := filepath.Join(t.TempDir(), "updates.jsonl")
	require.NoError(t, os.WriteFile(file, updates.Bytes(), 0o644))
	here, err := filepath.Abs(filepath.Join("testdata", "codecompanion"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+filepath.Join(here, "shows.lua"))
	cmd.Env = append(os.Environ(), "CODECOMPANION_DIR="+dir, "UPDATES="+file, "SHIMS="+filepath.Join(here, "shims.lua"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	calls := map[string]codecompanionLine{}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		require.Len(t, f, 4, "%q", line)
		unescape := strings.NewReplacer(`\\`, `\`, `\n`, "\n").Replace
		calls[f[0]] = codecompanionLine{unescape(f[1]), unescape(f[2]), f[3] == "true"}
	}
	return calls
}
