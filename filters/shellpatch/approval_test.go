package shellpatch

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// #25.3: a permission request is the moment of consent. When the user changes a shown file while
// the prompt is open and then approves, the diff approved was computed from the text before: the
// command overwrites their work. The files are read again when the client answers; a file that
// no longer holds the shown oldText is said so at once, by an update sent before the answer goes
// on to the agent (before the command runs), and the check after the run compares the old text
// too: the edit is taken back even though the file holds the new text shown. The same for
// opencode's edit tool.
func TestAFileChangedBeforeTheApprovalIsSaidAtOnce(t *testing.T) {
	const allow = `{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`
	for _, tc := range []struct {
		name    string
		between func(t *testing.T, path string) // while the prompt is open
		outcome string                          // the client's answer
		said    string                          // in the update sent at the answer; "" none
	}{
		{"the user edits the file", writeFile("user's work\n"), allow, "was changed"},
		{"the user removes the file", func(t *testing.T, path string) { require.NoError(t, os.Remove(path)) }, allow, "created or removed"},
		{"nothing changes", nil, allow, ""},
		{"changed, but the request is cancelled", writeFile("user's work\n"), `{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}}}`, ""},
	} {
		t.Run("shell/"+tc.name, func(t *testing.T) {
			var log bytes.Buffer
			f := &Filter{Log: slog.New(slog.NewJSONHandler(&log, nil))}
			c, dir := shellPatchSession(t, f)
			path := filepath.Join(dir, "f")
			require.NoError(t, os.WriteFile(path, []byte("v1\n"), 0o644))
			const script = "printf 'agent\\n' > f"
			got := chaintest.Run(t, c, acp.AgentToClient, append(claudeBash("c1", script), claudePermission("c1", script))...)
			require.False(t, got[2].Original)
			if tc.between != nil {
				tc.between(t, path)
			}
			got = chaintest.Run(t, c, acp.ClientToAgent, tc.outcome)
			if tc.said == "" {
				require.Len(t, got, 1)
				assert.True(t, got[0].Original)
				return
			}
			require.Len(t, got, 2, "an update, then the answer")
			assert.Equal(t, acp.AgentToClient, got[0].Dir, "the update goes to the client")
			assert.Equal(t, `"execute"`, field(t, got[0].Raw, "params", "update", "kind"))
			assert.Contains(t, field(t, got[0].Raw, "params", "update", "content"), tc.said)
			assert.Equal(t, acp.ClientToAgent, got[1].Dir)
			assert.Equal(t, tc.outcome, got[1].Raw, "the answer goes on after it")

			// The command runs and writes what was shown, over the user's work: not verified.
			require.NoError(t, os.WriteFile(path, []byte("agent\n"), 0o644))
			got = chaintest.Run(t, c, acp.AgentToClient, claudeDone("c1", "completed"))
			require.Len(t, got, 1)
			assert.Contains(t, field(t, got[0].Raw, "params", "update", "content"), "did not write what was shown")
			assert.Contains(t, field(t, got[0].Raw, "params", "update", "content"), tc.said)
			assert.Equal(t, int64(0), f.Counts()["editsVerified"])
		})
	}
	t.Run("opencode edit", func(t *testing.T) {
		c, dir := namedAgentSession(t, "OpenCode")
		abs := filepath.Join(dir, "a.txt")
		require.NoError(t, os.WriteFile(abs, []byte("one\ntwo\n"), 0o644))
		update, ask, done := opencodeEditCall("e1", fmt.Sprintf(`{"filePath":%q,"oldString":"two","newString":"TWO"}`, abs), abs, "")
		got := chaintest.Run(t, c, acp.AgentToClient, update, ask)
		require.False(t, got[1].Original, "the request shows the whole file's diff")
		id := field(t, ask, "id")
		require.NoError(t, os.WriteFile(abs, []byte("one\ntwo\nuser\n"), 0o644))
		got = chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"outcome":{"outcome":"selected","optionId":"once"}}}`, id))
		require.Len(t, got, 2, "an update, then the answer")
		assert.Contains(t, got[0].Raw, "was changed")
		require.NoError(t, os.WriteFile(abs, []byte("one\nTWO\n"), 0o644)) // what the diff showed
		got = chaintest.Run(t, c, acp.AgentToClient, done)
		assert.Contains(t, got[0].Raw, "did not write")
		assert.True(t, strings.Contains(got[0].Raw, "was changed"), got[0].Raw)
	})
}
