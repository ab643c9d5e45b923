package realagent

import (
	"path/filepath"
	"testing"
)

// QwenOptions configures a qwen-code run.
type QwenOptions struct {
	// ModelBaseURL is the mock OpenAI-compatible API,
	// mockmodel.Chat.BaseURL(). Required.
	ModelBaseURL string
	// ApprovalMode is tools.approvalMode in settings.json; empty means
	// "default", which asks session/request_permission before shell
	// commands (qwen-code's own default is "auto"); "yolo" runs them
	// without asking.
	ApprovalMode string
}

var qwenPackage = agentPackage{"qwen-code", "qwen-code", "@qwen-code/qwen-code"}

// qwenModel is the model the mock serves; qwen-code sends it as given.
const qwenModel = "mock-model"

// Qwen returns the launch configuration of `qwen --acp`
// (@qwen-code/qwen-code, a fork of gemini-cli that talks to
// OpenAI-compatible APIs) with a private HOME, offline: it talks only to
// the mock model at OPENAI_BASE_URL with a dummy key, and its settings turn
// off telemetry, statistics, the update check and the model calls it makes
// on its own after a turn.
func Qwen(t testing.TB, opts QwenOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "QwenOptions.ModelBaseURL")
	// cli.js, not the cli-entry.js bin, which starts cli.js again in a
	// second node with --expose-gc: one process less, same agent.
	cli, version := qwenPackage.locate(t, qwenPackage.npm+"/cli.js")
	nodeBin := node(t)
	d := newDirs(t, ".qwen")
	writeJSON(t, filepath.Join(d.config, "settings.json"), qwenSettings(opts))
	env := append(baseEnv(d.home),
		"OPENAI_BASE_URL="+opts.ModelBaseURL,
		"OPENAI_API_KEY=dummy",
		"OPENAI_MODEL="+qwenModel,
		// As GEMINI_CLI_NO_RELAUNCH for gemini-cli: no second process
		// with a bigger heap.
		"QWEN_CODE_NO_RELAUNCH=true",
	)
	return d.agent(qwenPackage, version, []string{nodeBin, cli, "--acp"}, env)
}

// qwenSettings is settings.json: the OpenAI-compatible auth and model, no
// telemetry, statistics or updates, the approval mode, and none of the
// background model calls (after a turn qwen-code asks the model to update
// its memory files and to suggest the user's next prompt, with tools, and
// may start on that suggestion: the mock would make them run its script
// again).
func qwenSettings(opts QwenOptions) map[string]any {
	mode := opts.ApprovalMode
	if mode == "" {
		mode = "default"
	}
	return map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"model":     map[string]any{"name": qwenModel},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false},
		"tools":     map[string]any{"approvalMode": mode},
		"memory":    map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
		"ui":        map[string]any{"enableFollowupSuggestions": false, "enableSpeculation": false},
	}
}
