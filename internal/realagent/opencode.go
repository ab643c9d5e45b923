package realagent

import (
	"path/filepath"
	"testing"
)

// OpencodeOptions configures an opencode run.
type OpencodeOptions struct {
	// ModelBaseURL is the mock OpenAI-compatible API,
	// mockmodel.Chat.BaseURL(). Required.
	ModelBaseURL string
	// Ask makes opencode ask session/request_permission before bash and
	// edits ("permission": {"bash": "ask", "edit": "ask"}). Its default
	// allows everything.
	Ask bool
}

var opencodePackage = agentPackage{"opencode", "opencode", "opencode-ai"}

// opencodeDeadRegistry is where npm is sent: nothing listens on port 9
// (discard) of 127.0.0.1, so an install opencode starts fails at once.
const opencodeDeadRegistry = "http://127.0.0.1:9/"

// Opencode returns the launch configuration of `opencode acp`
// (opencode-ai, its linux-x64 binary) offline: a private HOME and XDG
// directories, an OpenAI-compatible provider "mock" at the mock model, and
// nothing else to fetch (no models list, update, share or LSP download;
// the plugin package it installs into each config directory is already
// "there").
func Opencode(t testing.TB, opts OpencodeOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "OpencodeOptions.ModelBaseURL")
	bin, version := opencodePackage.locate(t, "opencode-linux-x64/bin/opencode")
	d := newDirs(t, ".config/opencode") // XDG_CONFIG_HOME/opencode
	writeJSON(t, filepath.Join(d.config, "opencode.json"), opencodeConfig(opts))
	writeOpencodePlugin(t, d.config, "@opencode-ai/plugin", version)
	env := append(baseEnv(d.home), opencodeXDG(d.home)...)
	env = append(env,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"npm_config_registry="+opencodeDeadRegistry,
	)
	return d.agent(opencodePackage, version, []string{bin, "acp"}, env)
}

// opencodeXDG are the XDG directories, under the private HOME.
func opencodeXDG(home string) []string {
	return []string{
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
	}
}

// opencodeConfig is opencode.json: the mock provider as the only model,
// no updates or sharing, and the options.
func opencodeConfig(opts OpencodeOptions) map[string]any {
	config := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "mock",
			"options": map[string]any{"baseURL": opts.ModelBaseURL, "apiKey": "dummy"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "mock-model", "tool_call": true}},
		}},
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"autoupdate":  false,
		"share":       "disabled",
	}
	if opts.Ask {
		config["permission"] = map[string]any{"bash": "ask", "edit": "ask"}
	}
	return config
}

// writeOpencodePlugin makes configDir look as if the plugin package pkg
// (version) were installed: opencode runs `npm install @opencode-ai/plugin`
// in a config directory that lacks it, and kilo, its fork, the same with
// @kilocode/plugin.
func writeOpencodePlugin(t testing.TB, configDir, pkg, version string) {
	t.Helper()
	plugin := map[string]any{pkg: version}
	writeJSON(t, filepath.Join(configDir, "package.json"), map[string]any{"dependencies": plugin})
	writeJSON(t, filepath.Join(configDir, "package-lock.json"), map[string]any{
		"name": "opencode", "lockfileVersion": 3, "requires": true,
		"packages": map[string]any{"": map[string]any{"dependencies": plugin}},
	})
	writeFile(t, filepath.Join(configDir, "node_modules", ".keep"), "")
}
