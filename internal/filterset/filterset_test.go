package filterset_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters/policy"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

func TestFiltersRunInOneOrderWhateverTheFlags(t *testing.T) {
	cases := []struct {
		cfg   filterset.Config
		names []string
		flags []string
	}{
		{filterset.Config{}, nil, nil},
		{filterset.Config{TerminalOutput: true}, []string{"terminal-output", "persisted-output"}, []string{"--terminal-output"}},
		{filterset.Config{ExpandPersistedOutput: true}, []string{"persisted-output"}, []string{"--expand-persisted-output"}},
		{filterset.Config{ExpandPersistedOutput: true, TerminalOutput: true, Deltas: true, ShellToPatch: true},
			[]string{"shell-to-patch", "deltas", "terminal-output", "persisted-output"},
			[]string{"--shell-to-patch", "--deltas", "--terminal-output", "--expand-persisted-output"}},
		// the policy runs first, on what the agent sent; it is not a flag without a value
		{filterset.Config{Policy: &policy.Policy{}, ShellToPatch: true}, []string{"policy", "shell-to-patch"}, []string{"--shell-to-patch"}},
	}
	for _, c := range cases {
		var names []string
		for _, f := range c.cfg.Filters() {
			names = append(names, f.Name())
		}
		assert.Equal(t, c.names, names)
		assert.Equal(t, c.flags, c.cfg.Flags())
		assert.Equal(t, len(c.names), c.cfg.Chain(capabilities.New()).Len())
	}
}

func update(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":` + u + `}}`
}

func TestAnEditCallGetsNoTerminalOutputFromTheOtherFilters(t *testing.T) {
	// Claude announces a terminal before its command is known; once
	// shell-to-patch shows the call as an edit, terminal-output must not
	// complete that terminal from rawOutput.
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	c := filterset.Config{ShellToPatch: true, Deltas: true, TerminalOutput: true}.Chain(capabilities.New())
	chaintest.Run(t, c, acp.ClientToAgent,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"_meta":{"terminal_output":true}}}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
	chaintest.Run(t, c, acp.AgentToClient,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"@zed-industries/claude-agent-acp"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
	got := chaintest.Run(t, c, acp.AgentToClient,
		update(`{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"toolu_1"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":"toolu_1"}]}`),
		update(`{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call_update","rawInput":{"command":"echo hi > out.txt","description":"Write"},"title":"echo hi > out.txt"}`),
		update(`{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"toolu_1","exit_code":0,"signal":null}},"toolCallId":"toolu_1","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"(Bash completed with no output)","content":[{"type":"terminal","terminalId":"toolu_1"}]}`))
	require.Len(t, got, 3, "no extra terminal_output update")
	for _, g := range got[1:] {
		assert.NotContains(t, g.Raw, "terminal_output")
		assert.NotContains(t, g.Raw, `"type":"terminal"`)
	}
	kind, _ := rawjson.GetString([]byte(got[1].Raw), "params", "update", "kind")
	assert.Equal(t, "edit", kind)
}
