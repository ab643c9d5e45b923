package shellpatch

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// A call shown as an edit keeps showing the command that runs: the agent's title when it names
// the command, the command's first line otherwise. The diff comes beside it, never in its place.
func TestTheCommandIsNeverHidden(t *testing.T) {
	heredoc := "cat <<'EOF' > notes.md\n# Notes\nEOF"
	for _, tc := range []struct {
		name  string
		msgs  func(dir string) []string
		path  []string // where the title is, in the last message
		title string   // what the client is shown
	}{
		{"the agent's title names the command: it stays", func(dir string) []string {
			return []string{codexCall("c1", "echo hi > f", dir)}
		}, []string{"params", "update", "title"}, `"echo hi > f"`},
		{"a title that does not name it: the command's first line", func(dir string) []string {
			return []string{patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Write notes.md","kind":"execute","rawInput":{"command":["bash","-lc",%s],"cwd":%q}}`, jsonString(heredoc), dir))}
		}, []string{"params", "update", "title"}, `"cat <<'EOF' > notes.md"`},
		{"a permission request without a title", func(dir string) []string {
			return []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"c1","kind":"execute","rawInput":{"command":["bash","-lc","echo hi > f"],"cwd":%q}},"options":[]}}`, dir)}
		}, []string{"params", "toolCall", "title"}, `"echo hi > f"`},
		{"claude's update with its own title", func(string) []string { return claudeBash("toolu_1", "echo hi > f") },
			[]string{"params", "update", "title"}, `"echo hi > f"`},
		{"a later command on an update without a title", func(dir string) []string {
			return []string{codexCall("c1", "echo hi > f", dir),
				patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","rawInput":{"command":["bash","-lc","echo bye > g"],"cwd":%q}}`, dir))}
		}, []string{"params", "update", "title"}, `"echo bye > g"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := shellPatchSession(t, &Filter{})
			got := chaintest.Run(t, c, acp.AgentToClient, tc.msgs(dir)...)
			last := got[len(got)-1]
			require.False(t, last.Original, last.Raw)
			assert.Equal(t, tc.title, field(t, last.Raw, tc.path...))
		})
	}
}

// The title the proxy makes shows every character of the command's first line: one that may not
// show as what it is (a bidi control in an echo's text would reorder the title) is escaped.
func TestTheCommandsTitleIsEscaped(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	script := "printf '\u202etxt.exe\\n' > notes.md"
	msg := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"run","kind":"execute","rawInput":{"command":["bash","-lc",%s],"cwd":%q}}`, jsonString(script), dir))
	got := chaintest.Run(t, c, acp.AgentToClient, msg)
	require.False(t, got[0].Original)
	assert.Equal(t, `"printf '\\u{202E}txt.exe\\n' > notes.md"`, field(t, got[0].Raw, "params", "update", "title"))
}
