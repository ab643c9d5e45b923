package realagent

import (
	"path/filepath"
	"testing"
)

// GeminiOptions configures a gemini-cli run.
type GeminiOptions struct {
	// ModelURL is the mock Gemini API, mockmodel.Gemini.URL(). Required.
	ModelURL string
	// ApprovalMode is general.defaultApprovalMode in settings.json; empty
	// means "default", which asks session/request_permission for shell
	// commands. "yolo" runs them without asking.
	ApprovalMode string
	// NoPTY sets tools.shell.enableInteractiveShell to false: commands run
	// without node-pty, and the final tool_call_update carries their
	// output as text. With the default (a PTY), it carries no content at
	// all: the output goes to the model only.
	NoPTY bool
}

var geminiPackage = agentPackage{"gemini-cli", "gemini-cli", "@google/gemini-cli"}

// geminiModel is pinned so that gemini-cli does not first ask a classifier
// model which model to route the prompt to.
const geminiModel = "gemini-2.5-flash"

// Gemini returns the launch configuration of `gemini --acp`
// (@google/gemini-cli) with a private HOME, offline: it talks only to the
// mock model at GOOGLE_GEMINI_BASE_URL with a dummy GEMINI_API_KEY, and
// its settings turn off telemetry, usage statistics and the update check.
func Gemini(t testing.TB, opts GeminiOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelURL, "GeminiOptions.ModelURL")
	cli, version := geminiPackage.locate(t, geminiPackage.npm+"/bundle/gemini.js")
	nodeBin := node(t)
	d := newDirs(t, ".gemini")
	writeJSON(t, filepath.Join(d.config, "settings.json"), geminiSettings(opts))
	env := append(baseEnv(d.home),
		"GOOGLE_GEMINI_BASE_URL="+opts.ModelURL,
		"GEMINI_API_KEY=dummy",
		// gemini.js otherwise starts itself again with a bigger heap: one
		// process less, same agent.
		"GEMINI_CLI_NO_RELAUNCH=true",
	)
	return d.agent(geminiPackage, version, []string{nodeBin, cli, "--acp"}, env)
}

// geminiSettings is settings.json: an API key, the pinned model, no
// telemetry, statistics or updates, and the options.
func geminiSettings(opts GeminiOptions) map[string]any {
	mode := opts.ApprovalMode
	if mode == "" {
		mode = "default"
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"model":     map[string]any{"name": geminiModel},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general": map[string]any{
			"enableAutoUpdate": false, "enableAutoUpdateNotification": false,
			"defaultApprovalMode": mode,
		},
	}
	if opts.NoPTY {
		settings["tools"] = map[string]any{"shell": map[string]any{"enableInteractiveShell": false}}
	}
	return settings
}
