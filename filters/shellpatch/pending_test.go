package shellpatch

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// #25.2: two calls that write one file, both announced before either runs (two permission
// requests open at once, or parallel tool calls). The second's diff, computed from the file as
// it is, is wrong if the first runs first, and the first's if the second does: a shown edit that
// has not been seen to end counts, and the second is not shown (the reason is logged). Once the
// first ended, the file is what it will be, and the second is shown.
func TestTwoPendingEditsOfOneFile(t *testing.T) {
	for _, tc := range []struct {
		name, first, second string
		firstEnds           bool // the first call completed before the second was announced
		shown               bool // the second is shown
	}{
		{"two appends", "echo A >> f", "echo B >> f", false, false},
		{"two sed -i", "sed -i s/x/y/ f", "sed -i s/y/z/ f", false, false},
		{"an append, then an overwrite", "echo A >> f", "echo B > f", false, false},
		{"one file named two ways", "echo A >> f", "echo B >> ./sub/../f", false, false},
		{"one file of several", "echo A >> g", "echo B > h; echo C >> g", false, false},
		{"other files", "echo A >> f", "echo B >> g", false, true},
		{"the first ended", "echo A >> f", "echo B >> f", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			f := &Filter{Log: slog.New(slog.NewJSONHandler(&log, nil))}
			c, dir := shellPatchSession(t, f)
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			for _, name := range []string{"f", "g"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644))
			}
			got := chaintest.Run(t, c, acp.AgentToClient, append(claudeBash("c1", tc.first), claudePermission("c1", tc.first))...)
			require.False(t, got[2].Original, "the first is shown: %s", got[2].Raw)
			if tc.firstEnds {
				runIn(t, dir, tc.first)
				chaintest.Run(t, c, acp.AgentToClient, claudeDone("c1", "completed"))
			}
			got = chaintest.Run(t, c, acp.AgentToClient, append(claudeBash("c2", tc.second), claudePermission("c2", tc.second))...)
			if !tc.shown {
				assert.True(t, got[1].Original, "the second's update is shown: %s", got[1].Raw)
				assert.True(t, got[2].Original, "the second's request is shown: %s", got[2].Raw)
				assert.Contains(t, log.String(), "depends on which runs first")
				return
			}
			assert.False(t, got[2].Original)
			// Shown: what it shows is what the shell writes, the first having run.
			items := contentOf(t, got[2].Raw, "params", "toolCall", "content")
			runIn(t, dir, tc.second)
			now, err := os.ReadFile(items[0].Path)
			require.NoError(t, err)
			assert.Equal(t, string(now), items[0].NewText)
		})
	}
}

// runIn runs script in bash in dir, as the agent would.
func runIn(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}
