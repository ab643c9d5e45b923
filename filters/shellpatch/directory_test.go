package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

const (
	claude023  = "@zed-industries/claude-agent-acp 0.23.1"
	claude0101 = "@agentclientprotocol/claude-agent-acp 0.101.0"
	claudeNext = "@agentclientprotocol/claude-agent-acp 0.102.0"
)

// claudeSession is a session S of the claude release named "NAME VERSION", with a directory sub.
func claudeSession(t *testing.T, release string) (*filters.Chain, string) {
	t.Helper()
	var name, version string
	_, err := fmt.Sscan(release, &name, &version)
	require.NoError(t, err)
	c, dir := shellPatchSession(t, &Filter{})
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":1,"agentInfo":{"name":%q,"version":%q}}}`, name, version))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	return c, dir
}

// boundary sends the client's request and the agent's response of a prompt turn, a load or a
// resume of session sid.
func boundary(t *testing.T, c *filters.Chain, method, sid, dir string) {
	t.Helper()
	params := fmt.Sprintf(`{"sessionId":%q,"cwd":%q,"mcpServers":[]}`, sid, dir)
	result := `{}`
	if method == "session/prompt" {
		params, result = fmt.Sprintf(`{"sessionId":%q,"prompt":[]}`, sid), `{"stopReason":"end_turn"}`
	}
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":40,"method":%q,"params":%s}`, method, params))
	chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":40,"result":%s}`, result))
}

// Second review, classes 2 and 3: where claude's shell is after a prompt turn ends, or the session
// is loaded or resumed while live, depends on the release (proven by running each:
// TestShellToPatchClaudeShellAcrossTurns). 0.23.1 starts each turn, and a loaded or resumed session,
// in the project directory; 0.101.0 keeps the shell's directory across turns and on a load or
// resume of a live session. Anything not proven: no relative rewrite once a cd moved the shell.
func TestClaudeShellAcrossTurnsLoadsAndResumes(t *testing.T) {
	for _, tc := range []struct {
		release, boundary string
		want              string // where `echo b > notes.md` writes after the boundary; "" stands aside
	}{
		{claude023, "session/prompt", "notes.md"},
		{claude023, "session/resume", "notes.md"},
		{claude023, "session/load", "notes.md"},
		{claude0101, "session/prompt", "sub/notes.md"},
		{claude0101, "session/load", "sub/notes.md"},
		{claude0101, "session/resume", "sub/notes.md"},
		{claudeNext, "session/prompt", ""},
		{claudeNext, "session/load", ""},
		{claudeNext, "session/resume", ""},
	} {
		t.Run(tc.release+" "+tc.boundary, func(t *testing.T) {
			c, dir := claudeSession(t, tc.release)
			got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "cd sub && echo a > x")...)
			require.Equal(t, filepath.Join(dir, "sub", "x"), diffPath(t, got[1].Raw, "params", "update", "content"))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "x"), []byte("a\n"), 0o644))
			chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
			got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
			require.Equal(t, filepath.Join(dir, "sub", "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"), "within the turn the shell stays in sub")
			// It ends: an edit not seen to end holds its file (TestTwoPendingEditsOfOneFile).
			chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_2", "completed"))

			boundary(t, c, tc.boundary, "S", dir)
			got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_3", "echo c > notes.md")...)
			if tc.want == "" {
				assert.True(t, got[1].Original, got[1].Raw)
				return
			}
			assert.Equal(t, filepath.Join(dir, tc.want), diffPath(t, got[1].Raw, "params", "update", "content"))
		})
	}
	t.Run("at the session's directory every release agrees", func(t *testing.T) {
		c, dir := claudeSession(t, claudeNext)
		boundary(t, c, "session/prompt", "S", dir)
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "echo c > notes.md")...)
		assert.Equal(t, filepath.Join(dir, "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
	t.Run("a load of a session not live starts a new shell in its directory", func(t *testing.T) {
		c, dir := claudeSession(t, claudeNext)
		boundary(t, c, "session/load", "T", dir)
		msgs := claudeBash("toolu_1", "echo c > notes.md")
		for i := range msgs {
			msgs[i] = string(replaceSession(msgs[i], "T"))
		}
		got := chaintest.Run(t, c, acp.AgentToClient, msgs...)
		assert.Equal(t, filepath.Join(dir, "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
}

func replaceSession(msg, sid string) []byte {
	return []byte(fmt.Sprintf("%s%q%s", msg[:len(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`)], sid,
		msg[len(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S"`):]))
}
