package realagent

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// ClaudeOptions configures a claude-agent-acp run (docs/agents.md, "Running
// the agents offline").
type ClaudeOptions struct {
	// ModelURL is the mock Messages API, mockmodel.Messages.URL(). Required.
	ModelURL string
	// PermissionMode is written to settings.json as permissions.defaultMode;
	// empty leaves the default, which asks session/request_permission for
	// Bash. "bypassPermissions" works as root because IS_SANDBOX=1 is set.
	PermissionMode string
}

const claudeDir = "claude-agent-acp-0.23"

// Claude returns the launch configuration of @zed-industries/claude-agent-acp
// 0.23.1 with a private HOME and CLAUDE_CONFIG_DIR, offline.
func Claude(t testing.TB, opts ClaudeOptions) *Agent {
	t.Helper()
	if opts.ModelURL == "" {
		t.Fatal("realagent.Claude: ClaudeOptions.ModelURL is required")
	}
	index := installed(t,
		filepath.Join(claudeDir, "node_modules", "@zed-industries", "claude-agent-acp", "dist", "index.js"),
		npmHint(claudeDir))
	nodeBin := node(t)
	home, configDir, project := newDirs(t, ".claude")
	// Without a fresh blocklist the CLI fetches one from GitHub.
	writeJSON(t, filepath.Join(configDir, "plugins", "blocklist.json"), map[string]any{
		"fetchedAt": time.Now().UTC().Format(time.RFC3339), "plugins": []any{},
	})
	if opts.PermissionMode != "" {
		writeJSON(t, filepath.Join(configDir, "settings.json"), map[string]any{
			"permissions": map[string]any{"defaultMode": opts.PermissionMode},
		})
	}
	env := append(baseEnv(home),
		"CLAUDE_CONFIG_DIR="+configDir,
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
	return &Agent{
		Name:      "claude-agent-acp 0.23.1",
		Argv:      []string{nodeBin, index},
		Env:       env,
		Dir:       project,
		Home:      home,
		ConfigDir: configDir,
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("realagent: marshal %s: %v", path, err)
	}
	writeFile(t, path, string(b))
}
