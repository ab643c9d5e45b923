package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// inSession moves lines of session S to session sid.
func inSession(sid string, lines ...string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Replace(l, `"sessionId":"S"`, fmt.Sprintf(`"sessionId":%q`, sid), 1))
	}
	return out
}

// TestUnknownSessionsKeepTheStateBounded: 100,000 subagent sessions (a
// claude Bash call each, which the filter keeps state for, session and
// call) leave the filter holding at most maxShellPatchCalls sessions and
// calls, the bound its calls had already.
func TestUnknownSessionsKeepTheStateBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 sessions")
	}
	f := &Filter{}
	c, _ := shellPatchSession(t, f)
	for i := range 100_000 {
		got := chaintest.Run(t, c, acp.AgentToClient, inSession(fmt.Sprintf("sub-%06d", i), claudeBash("toolu_1", "echo x > f")[0])...)
		require.True(t, len(got) == 1 && got[0].Original, "a session without a directory: left as it came")
	}
	assert.Equal(t, maxShellPatchCalls, f.sessions.len(), "sessions kept")
	assert.Len(t, f.sessions.byID, f.sessions.order.Len())
	assert.Equal(t, maxShellPatchCalls, f.calls.Len(), "calls kept")
}

// bareRequest is a permission request for a call the filter has not seen, whose rawInput holds the
// command alone and says nothing of whose it is.
func bareRequest(id, script string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"}],"sessionId":"S","toolCall":{"toolCallId":%q,"rawInput":{"command":%s},"title":"t","kind":"execute"}}}`, id, jsonString(script))
}

// TestAForgottenSessionStandsAside: a claude session's shell moved to sub;
// once enough other sessions pushed the session's state out, where the
// shell is, and that the session is claude's, are no longer known: a
// write relative to the shell is left as it came rather than shown in the
// wrong directory, and so is a bare command of a call the filter does not
// follow (it would otherwise be read as another agent's, run in the
// session's directory). A session the client creates after that is one
// the filter knows from its start.
func TestAForgottenSessionStandsAside(t *testing.T) {
	for _, c := range []struct {
		name   string
		others int
		want   string // where the edits are shown, relative to the session's directory; "": not shown
	}{
		{"kept", maxShellPatchCalls - 1, "sub"},
		{"forgotten", maxShellPatchCalls, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &Filter{Unverified: true}
			chain, dir := shellPatchSession(t, f)
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			chaintest.Run(t, chain, acp.AgentToClient, claudeBash("toolu_1", "cd sub && echo a > x")...)
			chaintest.Run(t, chain, acp.AgentToClient, claudeDone("toolu_1", "completed"))
			for i := range c.others {
				chaintest.Run(t, chain, acp.AgentToClient, inSession(fmt.Sprintf("sub-%06d", i), claudeBash("toolu_1", "ls")[0])...)
			}
			// First the bare command: a claude call would tell the filter
			// again that the session is claude's.
			bare := chaintest.Run(t, chain, acp.AgentToClient, bareRequest("toolu_3", "bash -lc 'echo c > other.md'"))
			require.Len(t, bare, 1)
			call := chaintest.Run(t, chain, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
			require.Len(t, call, 2)
			if c.want == "" {
				assert.True(t, call[1].Original, "left as it came: %s", call[1].Raw)
				assert.True(t, bare[0].Original, "left as it came: %s", bare[0].Raw)
			} else {
				assert.Equal(t, filepath.Join(dir, c.want, "notes.md"), diffPath(t, call[1].Raw, "params", "update", "content"))
				assert.Equal(t, filepath.Join(dir, c.want, "other.md"), diffPath(t, bare[0].Raw, "params", "toolCall", "content"))
			}

			// A session created now starts where the client said.
			chaintest.Run(t, chain, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
			chaintest.Run(t, chain, acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"T"}}`)
			got := chaintest.Run(t, chain, acp.AgentToClient, inSession("T", claudeBash("toolu_4", "echo d > new.md")...)...)
			require.Len(t, got, 2)
			assert.Equal(t, filepath.Join(dir, "new.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
		})
	}
}
