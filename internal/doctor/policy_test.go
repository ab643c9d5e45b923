package doctor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/policy.md's table of what the policy stops per agent and mode is the one doctor says.
func TestPolicyDocMatchesDoctor(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "policy.md"))
	require.NoError(t, err)
	assert.Contains(t, string(doc), PolicyTable(), "docs/policy.md must hold PolicyTable's output; it is:\n%s", PolicyTable())
}

// doctor says, for the agent it runs, which calls the policy can stop before they run in each
// of its modes, and which setting makes it ask.
func TestReportSaysWhatThePolicyCanStop(t *testing.T) {
	grokCaps := `{"loadSession":true,"_meta":{"x.ai/hooks":{"blockingEvents":["pre_tool_use","stop","subagent_stop"],"decisions":["deny","block"]}}}`
	for _, c := range []struct {
		name, version string
		want          []string
		caps          string
	}{
		{"codex-acp", "0.16.0", []string{
			`  approval_policy = "untrusted": every command codex does not itself trust as read-only`,
			`  approval_policy = "never": nothing: it runs each call without asking;`,
			`  To make it ask: approval_policy = "untrusted" in $CODEX_HOME/config.toml`,
			"  Whatever the mode, the requests it asks the client to carry out (fs/write_text_file,"}, ""},
		{"@agentclientprotocol/claude-agent-acp", "0.101.0", []string{
			"  default: its Bash commands and edits that Claude Code's own allow rules do not allow",
			`  To make it ask: "permissions": {"defaultMode": "default"} in its settings.json.`}, ""},
		{"opencode", "1.18.33", []string{"  default: nothing: it runs each call without asking;",
			`  To make it ask: "permission": {"bash": "ask", "edit": "ask"} in opencode.json.`}, ""},
		{"some-agent", "1.0.0", []string{"  not measured with this agent: a call it asks permission for is decided before it runs"}, ""},
		// grok-build answers with no agentInfo: its hooks say it
		{"", "", []string{"  any (grok-build: its default, --always-approve): every call, before it runs and before the agent\n",
			"    asks anyone: it asks the client's pre-tool hook (x.ai/hooks), which the policy answers; a denied\n"}, grokCaps},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &Answer{ProtocolVersion: 1, Capabilities: json.RawMessage(c.caps)}
			a.Info.Name, a.Info.Version = c.name, c.version
			var out bytes.Buffer
			r := NewReport(a, []string{c.name}, "/usr/bin/acp-proxy", nil)
			r.writePolicy(&out)
			text := out.String()
			assert.True(t, strings.HasPrefix(text, "\nPolicy (--policy FILE), what it can stop before it runs:\n"), text)
			for _, w := range c.want {
				assert.Contains(t, text, w)
			}
		})
	}
}
