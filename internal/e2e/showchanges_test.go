package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// showChangesCommands are what the model runs: a program's write, which no
// reading of the command shows, and a copy.
var showChangesCommands = []string{`python3 -c "open('py.txt','w').write('from python\n')"`, "cp a.txt b.txt"}

// TestShowChangesRealAgents runs real agents behind --show-changes --record:
// the client is shown both files the commands made, with their text, in a
// git work tree and outside one; a replay of the trace on a machine where
// the files are gone shows the same diffs.
func TestShowChangesRealAgents(t *testing.T) {
	cases := []struct {
		agent, policy string
		git           bool
	}{
		{"codex-0.13", "untrusted", false},
		{"codex-0.16", "untrusted", true},
		{"codex-0.16", "untrusted", false},
		{"codex-2.6", "workspace-write", false},
		{"claude-0.23", "", false},
		{"claude-0.101", "", true},
		{"claude-0.101", "", false},
		{"gemini", "", false},
		{"opencode", "ask", true},
		{"kilo", "ask", false},
		{"qwen", "", false},
		{"cline", "", false},
		{"pi", "", true},
	}
	for _, tc := range cases {
		name := tc.agent + map[bool]string{true: " in git", false: " outside git"}[tc.git]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := launch(t, tc.agent, showChangesCommands, false, tc.policy)
			dir := s.agent.Dir
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644))
			if tc.git {
				gitCommitAll(t, dir)
			}
			trace := filepath.Join(t.TempDir(), "live.jsonl")
			opts := acpclient.Options{
				Argv:         append([]string{proxyBin(t), "--show-changes", "--record", trace, "--"}, s.agent.Argv...),
				Env:          s.agent.Env,
				Dir:          dir,
				Capabilities: clientCaps(false),
			}
			var c *acpclient.Client
			t.Run("live", func(t *testing.T) { c = acpclient.Run(t, opts, "run the commands") })
			if t.Failed() {
				t.FailNow()
			}
			want := map[string]string{filepath.Join(dir, "py.txt"): "from python\n", filepath.Join(dir, "b.txt"): "alpha\n"}
			live := shownDiffs(t, clientLines(c))
			for path, text := range want {
				d, ok := live[path]
				if assert.True(t, ok, "no diff showed %s; the client got:\n%s", path, c.Report()) {
					assert.Nil(t, d.OldText, "%s was created", path)
					assert.Equal(t, text, d.NewText, "the diff of %s", path)
				}
			}
			for path := range want {
				require.NoError(t, os.Remove(path))
			}
			heldLeftOnce(t, readTraceFile(t, trace))
			replayedLines := linesOf(replayTrace(t, trace, "--show-changes"), acp.AgentToClient)
			sameLines(t, "agent→client, live vs replay", clientLines(c), replayedLines)
			replayed := shownDiffs(t, replayedLines)
			for path := range want {
				assert.Equal(t, live[path], replayed[path], "the replay shows %s as the live proxy did", path)
			}
			page := filepath.Join(t.TempDir(), "view.html")
			out, err := exec.Command(proxyBin(t), "view", "--show-changes", "-o", page, trace).CombinedOutput()
			require.NoError(t, err, "%s", out)
			html, err := os.ReadFile(page)
			require.NoError(t, err)
			for _, text := range []string{filepath.Join(dir, "py.txt"), filepath.Join(dir, "b.txt")} { // only a diff names them whole
				assert.Contains(t, string(html), text, "the view shows the diff on the call")
			}
		})
	}
}

// heldLeftOnce checks that --show-changes' trace drops none of the agent's
// lines: each line it held (a call's end, held for its diffs, among them)
// left once, in a "heldSince" record of its own, as it came or with the
// diffs ("out"), never as a line dropped and a line the proxy added.
func heldLeftOnce(t *testing.T, recs []trace.Record) {
	t.Helper()
	var held, left [][]byte
	for _, r := range recs {
		if r.Dir != acp.AgentToClient || !r.HasLine {
			continue
		}
		assert.False(t, r.HasOut && len(r.Out) == 0 && !r.Held, "the agent's line was dropped: %s", r.Line)
		switch {
		case r.Held:
			held = append(held, r.Line)
		case r.Released:
			left = append(left, r.Line)
		}
	}
	assert.NotEmpty(t, held, "the end of each command is held for its diffs")
	assert.Equal(t, held, left, "each held line left once, in order")
}

// gitCommitAll makes dir a git work tree with everything in it committed.
func gitCommitAll(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm start")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", strings.TrimSpace(string(out)))
}

// With --shell-to-patch, a sed -i codex runs is shown once: as the edit
// shell-to-patch showed and verified, never again in show-changes' update.
func TestShowChangesBesideShellToPatchShowsASedOnce(t *testing.T) {
	commands := append(append([]string{}, showChangesCommands...), "sed -i s/alpha/ALPHA/ a.txt")
	s := launch(t, "codex-0.16", commands, false, "untrusted")
	dir := s.agent.Dir
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644))
	gitCommitAll(t, dir)
	c := acpclient.Run(t, acpclient.Options{
		Argv:         append([]string{proxyBin(t), "--shell-to-patch", "--show-changes", "--"}, s.agent.Argv...),
		Env:          s.agent.Env,
		Dir:          dir,
		Capabilities: clientCaps(false),
	}, "run the commands")
	lines := clientLines(c)
	shown := shownDiffs(t, lines)
	for path, text := range map[string]string{"py.txt": "from python\n", "b.txt": "alpha\n", "a.txt": "ALPHA\n"} {
		if d, ok := shown[filepath.Join(dir, path)]; assert.True(t, ok, "no diff showed %s\n%s", path, c.Report()) {
			assert.Equal(t, text, d.NewText, "the diff of %s", path)
		}
	}
	aPath := `"path":` + mustJSON(t, filepath.Join(dir, "a.txt"))
	for _, l := range lines {
		if strings.Contains(string(l), "acp-proxy: ") && strings.Contains(string(l), " changed since ") {
			assert.NotContains(t, string(l), aPath, "show-changes repeated the edit shell-to-patch showed: %s", l)
		}
	}
}
