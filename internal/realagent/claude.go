package realagent

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ClaudeOptions configures a claude-agent-acp run (docs/agents.md, "Running
// the agents offline").
type ClaudeOptions struct {
	// Version is "0.23" (@zed-industries/claude-agent-acp, the last
	// release under that name) or "0.101" (@agentclientprotocol/
	// claude-agent-acp, its successor); empty means "0.23".
	Version string
	// ModelURL is the mock Messages API, mockmodel.Messages.URL(). Required.
	ModelURL string
	// PermissionMode is written to settings.json as permissions.defaultMode.
	// Empty means "default", which asks session/request_permission for
	// Bash. (0.10x's own default is "auto", which asks the model to
	// classify every command first and fails each one against a mock
	// model.) "bypassPermissions" works as root because IS_SANDBOX=1 is set.
	PermissionMode string
}

// claudeVersions are the claude-agent-acp release lines by the version
// the tests name.
var claudeVersions = map[string]agentPackage{
	"0.23":  {"claude-agent-acp", "claude-agent-acp-0.23", "@zed-industries/claude-agent-acp"},
	"0.101": {"claude-agent-acp", "claude-agent-acp-0.101", "@agentclientprotocol/claude-agent-acp"},
}

// ClaudeVersions are the versions Claude accepts, oldest first.
var ClaudeVersions = []string{"0.23", "0.101"}

// Claude returns the launch configuration of claude-agent-acp with a
// private HOME and CLAUDE_CONFIG_DIR, offline.
func Claude(t testing.TB, opts ClaudeOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelURL, "ClaudeOptions.ModelURL")
	p := releaseLine(t, claudeVersions, cmp.Or(opts.Version, "0.23"))
	index, version := p.locate(t, p.npm+"/dist/index.js")
	nodeBin := node(t)
	d := newDirs(t, ".claude")
	// Without a fresh blocklist the CLI fetches one from GitHub.
	writeJSON(t, filepath.Join(d.config, "plugins", "blocklist.json"), map[string]any{
		"fetchedAt": time.Now().UTC().Format(time.RFC3339), "plugins": []any{},
	})
	mode := opts.PermissionMode
	if mode == "" {
		mode = "default"
	}
	writeJSON(t, filepath.Join(d.config, "settings.json"), map[string]any{
		"permissions": map[string]any{"defaultMode": mode},
	})
	env := append(baseEnv(d.home),
		"CLAUDE_CONFIG_DIR="+d.config,
		"ANTHROPIC_BASE_URL="+opts.ModelURL,
		"ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"DISABLE_COST_WARNINGS=1",
		"DISABLE_NON_ESSENTIAL_MODEL_CALLS=1",
		"CLAUDE_CODE_ENABLE_TELEMETRY=0",
		// As root, bypassPermissions needs it; harmless otherwise.
		"IS_SANDBOX=1",
	)
	return d.agent(p, version, []string{nodeBin, index}, env)
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err, "realagent: marshal %s", path)
	writeFile(t, path, string(b))
}
