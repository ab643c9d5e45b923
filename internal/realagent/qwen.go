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
	// "default", which asks session/request_permission for shell commands.
	ApprovalMode string
}

var qwenPackage = agentPackage{"qwen-code", "qwen-code", "@qwen-code/qwen-code"}

// Qwen returns the launch configuration of `qwen --acp`
// (@qwen-code/qwen-code) with a private HOME, offline.
func Qwen(t testing.TB, opts QwenOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "QwenOptions.ModelBaseURL")
	cli, version := qwenPackage.locate(t, qwenPackage.npm+"/cli.js")
	nodeBin := node(t)
	d := newDirs(t, ".qwen")
	writeJSON(t, filepath.Join(d.config, "settings.json"), qwenSettings(opts))
	env := append(baseEnv(d.home),
		"OPENAI_BASE_URL="+opts.ModelBaseURL,
		"OPENAI_API_KEY=dummy",
		"OPENAI_MODEL=mock-model",
		"QWEN_CODE_NO_RELAUNCH=true",
	)
	return d.agent(qwenPackage, version, []string{nodeBin, cli, "--acp"}, env)
}

func qwenSettings(opts QwenOptions) map[string]any {
	mode := opts.ApprovalMode
	if mode == "" {
		mode = "default"
	}
	return map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"model":     map[string]any{"name": "mock-model"},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false},
		"memory":    map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
		"tools":     map[string]any{"approvalMode": mode},
	}
}
