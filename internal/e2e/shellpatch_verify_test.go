package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
)

// takenBackNote starts the note of an edit shell-to-patch took back.
const takenBackNote = "acp-proxy: the command did not write what was shown"

// claudeProxy starts claude (agent "claude-0.23" or "claude-0.101") behind `acp-proxy
// --shell-to-patch` with the mock model's script, in a project with a directory sub. onLine
// sees every line the client receives, before it answers.
func claudeProxy(t *testing.T, agent string, script mockmodel.Script, env []string, onLine func(acpclient.Line)) (*acpclient.Client, string) {
	t.Helper()
	s := launchScript(t, agent, script, false, "untrusted")
	require.NoError(t, os.Mkdir(filepath.Join(s.agent.Dir, "sub"), 0o755))
	c := acpclient.Start(t, acpclient.Options{
		Argv:         append([]string{proxyBin(t), "--shell-to-patch", "--"}, s.agent.Argv...),
		Env:          append(s.agent.Env[:len(s.agent.Env):len(s.agent.Env)], env...),
		Dir:          s.agent.Dir,
		Capabilities: clientCaps(false),
		OnLine:       onLine,
	})
	c.Initialize()
	return c, s.agent.Dir
}

// checkFinalDiffsHoldTheDisk requires every diff in the calls' final states to show what the
// file holds now, and returns how many calls end shown as edits and how many were taken back.
func checkFinalDiffsHoldTheDisk(t *testing.T, lines [][]byte) (edits, takenBack int) {
	t.Helper()
	for id, st := range finalStates(t, lines) {
		var items []struct {
			diffItem
			Content struct{ Text string } `json:"content"`
		}
		json.Unmarshal([]byte(st["content"]), &items)
		for _, it := range items {
			if it.Type == "diff" {
				got, err := os.ReadFile(it.Path)
				if assert.NoError(t, err) {
					assert.Equal(t, it.NewText, string(got), "call %s ends showing %s becoming the left; it holds the right", id, it.Path)
				}
			}
			if strings.HasPrefix(it.Content.Text, takenBackNote) {
				takenBack++
			}
		}
		if st["kind"] == `"edit"` {
			edits++
		}
	}
	return edits, takenBack
}

// Second review, classes 2 and 3, with the real agents: where claude's shell is in the next
// prompt turn, and after a session/load or session/resume of the live session. The model runs
// `cd sub && echo a > x.txt` in the first turn and `echo b > notes.md` in the second; where
// notes.md lands is each release's behaviour, which the filter's table (claudeCarries) records.
// Whatever the release does, every diff the client is shown holds the file as it ends up.
func TestShellToPatchClaudeShellAcrossTurns(t *testing.T) {
	cases := []struct {
		name, agent string
		between     string // "" a new prompt turn; or a session/load or session/resume first
		lands       string // where the second turn writes notes.md
		edits       int    // second-turn calls shown as edits
	}{
		{"claude-0.23 next turn", "claude-0.23", "", "notes.md", 1},
		{"claude-0.101 next turn", "claude-0.101", "", "sub/notes.md", 1},
		{"claude-0.23 resume", "claude-0.23", "session/resume", "notes.md", 1},
		{"claude-0.101 load of the live session", "claude-0.101", "session/load", "sub/notes.md", 1},
		{"claude-0.23 load of the live session", "claude-0.23", "session/load", "notes.md", 1},
		{"claude-0.101 resume", "claude-0.101", "session/resume", "sub/notes.md", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := mockmodel.Script{PromptCommands: map[string][]string{
				"first turn": {"cd sub && echo a > x.txt"}, "second turn": {"echo b > notes.md"}}}
			c, dir := claudeProxy(t, tc.agent, script, nil, nil)
			sid := c.NewSession(dir)
			stop := c.Prompt(sid, "first turn")
			require.Equal(t, "end_turn", stop, "first turn: %s", stop)
			if tc.between != "" {
				c.Call(tc.between, map[string]any{"sessionId": sid, "cwd": dir, "mcpServers": []any{}})
			}
			before := len(c.Lines())
			require.Equal(t, "end_turn", c.Prompt(sid, "second turn"), "the second turn's stop reason")
			lands := ""
			for _, rel := range []string{"notes.md", "sub/notes.md"} {
				if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
					lands += rel
				}
			}
			t.Logf("%s: notes.md landed in %q", tc.name, lands)
			if tc.lands != "" {
				assert.Equal(t, tc.lands, lands, "notes.md landed in")
			}
			second := clientLines(c)[before:]
			edits, _ := checkFinalDiffsHoldTheDisk(t, second)
			for _, l := range second {
				if bytes.Contains(l, []byte(`notes.md"`)) && bytes.Contains(l, []byte(`"type":"diff"`)) {
					if assert.NotEmpty(t, lands, "the client was shown another file than %q: %s", lands, l) {
						assert.True(t, bytes.Contains(l, []byte(`"path":"`+filepath.Join(dir, lands)+`"`)), "the client was shown another file than %q: %s", lands, l)
					}
				}
			}
			assert.Equal(t, tc.edits, edits)
			if t.Failed() {
				t.Log(c.Report())
				for _, l := range second {
					t.Logf("%.600s", l)
				}
			}
		})
	}
}

// The verification with the real agents: the user approves an edit, then the command writes
// something else, or nothing. The call's final update takes the edit back, visibly.
func TestShellToPatchTakesBackWhatDidNotHappen(t *testing.T) {
	// CLAUDE_CODE_SHELL_PREFIX runs every command through a program of the user's: this one
	// writes other text, where the proxy cannot see it.
	prefixDir := t.TempDir()
	prefix := filepath.Join(prefixDir, "prefix.sh")
	require.NoError(t, os.WriteFile(prefix, []byte("#!/bin/sh\necho rewritten > \"$PWD/original.txt\"\n"), 0o755))
	for _, agent := range []string{"claude-0.23", "claude-0.101"} {
		t.Run(agent+" a shell prefix rewrites the command", func(t *testing.T) {
			t.Parallel()
			script := mockmodel.Script{Commands: []string{"echo original > original.txt"}}
			c, dir := claudeProxy(t, agent, script, []string{"CLAUDE_CODE_SHELL_PREFIX=" + prefix}, nil)
			sid := c.NewSession(dir)
			c.Prompt(sid, "write it")
			got, _ := os.ReadFile(filepath.Join(dir, "original.txt"))
			if string(got) != "rewritten\n" {
				t.Skipf("the prefix did not run as expected (original.txt = %q)", got)
			}
			_, takenBack := checkFinalDiffsHoldTheDisk(t, clientLines(c))
			assert.Equal(t, 1, takenBack, "%d calls taken back, want 1\n%s", takenBack, c.Report())
		})
		t.Run(agent+" the file turns immutable between the prompt and the run", func(t *testing.T) {
			t.Parallel()
			script := mockmodel.Script{Commands: []string{"echo new > notes.md"}}
			var target atomic.Pointer[string]
			var locked atomic.Bool
			c, dir := claudeProxy(t, agent, script, nil, func(l acpclient.Line) {
				if p := target.Load(); p != nil && !locked.Load() && bytes.Contains(l.Raw, []byte(`"session/request_permission"`)) {
					locked.Store(exec.Command("chattr", "+i", *p).Run() == nil)
				}
			})
			path := filepath.Join(dir, "notes.md")
			target.Store(&path)
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
			t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
			sid := c.NewSession(dir)
			c.Prompt(sid, "write it")
			if !locked.Load() {
				t.Skip("chattr +i is not available here")
			}
			_, takenBack := checkFinalDiffsHoldTheDisk(t, clientLines(c))
			assert.Equal(t, 1, takenBack, "%d calls taken back, want 1\n%s", takenBack, c.Report())
		})
	}
}
