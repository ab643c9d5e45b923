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
	// Version is "0.23" (@zed-industries/claude-agent-acp 0.23.1, the
	// default) or "0.101" (@agentclientprotocol/claude-agent-acp 0.101.0).
	// 0.101 defaults to the "auto" permission mode, in which the CLI asks
	// the model to classify every command first; without PermissionMode
	// it is started in "default", which asks the client as 0.23 does.
	Version string
}

// claudePackages are the installed claude-agent-acp versions: the
// directory under testdata/agents and the package's path in node_modules.
var claudePackages = map[string]struct{ dir, pkg, release string }{
	"0.23":  {"claude-agent-acp-0.23", "@zed-industries/claude-agent-acp", "0.23.1"},
	"0.101": {"claude-agent-acp-0.101", "@agentclientprotocol/claude-agent-acp", "0.101.0"},
}

// Claude returns the launch configuration of @zed-industries/claude-agent-acp
// 0.23.1 with a private HOME and CLAUDE_CONFIG_DIR, offline.
func Claude(t testing.TB, opts ClaudeOptions) *Agent {
	t.Helper()
	if opts.ModelURL == "" {
		t.Fatal("realagent.Claude: ClaudeOptions.ModelURL is required")
	}
	if opts.Version == "" {
		opts.Version = "0.23"
	}
	p, ok := claudePackages[opts.Version]
	if !ok {
		t.Fatalf("realagent.Claude: unknown version %q", opts.Version)
	}
	if opts.PermissionMode == "" && opts.Version != "0.23" {
		opts.PermissionMode = "default"
	}
	index := installed(t, filepath.Join(p.dir, "node_modules", p.pkg, "dist", "index.js"), npmHint(p.dir))
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
		Name:      "claude-agent-acp " + p.release,
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
