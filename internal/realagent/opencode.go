package realagent

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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

const (
	opencodeDir = "opencode"
	opencodePkg = "opencode-ai"
	// opencodeDeadRegistry is where npm is sent: nothing listens on port 9
	// (discard) of 127.0.0.1, so an install opencode starts fails at once.
	opencodeDeadRegistry = "http://127.0.0.1:9/"
)

// Opencode returns the launch configuration of `opencode acp`
// (opencode-ai, its linux-x64 binary) offline: a private HOME and XDG
// directories, an OpenAI-compatible provider "mock" at the mock model, and
// nothing else to fetch (no models list, update, share or LSP download;
// the plugin package it installs into each config directory is already
// "there").
func Opencode(t testing.TB, opts OpencodeOptions) *Agent {
	t.Helper()
	require.NotEmpty(t, opts.ModelBaseURL, "realagent.Opencode: OpencodeOptions.ModelBaseURL is required")
	bin := installed(t, opencodeDir, filepath.Join("opencode-linux-x64", "bin", "opencode"))
	version := packageVersion(t, opencodeDir, opencodePkg)
	home, _, project := newDirs(t, ".config")
	xdg := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
	}
	configDir := filepath.Join(xdg["XDG_CONFIG_HOME"], "opencode")
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
	writeJSON(t, filepath.Join(configDir, "opencode.json"), config)
	// opencode runs `npm install @opencode-ai/plugin` in a config
	// directory that lacks it; this one has it, as far as it can tell.
	plugin := map[string]any{"@opencode-ai/plugin": version}
	writeJSON(t, filepath.Join(configDir, "package.json"), map[string]any{"dependencies": plugin})
	writeJSON(t, filepath.Join(configDir, "package-lock.json"), map[string]any{
		"name": "opencode", "lockfileVersion": 3, "requires": true,
		"packages": map[string]any{"": map[string]any{"dependencies": plugin}},
	})
	writeFile(t, filepath.Join(configDir, "node_modules", ".keep"), "")
	env := baseEnv(home)
	for k, v := range xdg {
		env = append(env, k+"="+v)
	}
	env = append(env,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"npm_config_registry="+opencodeDeadRegistry,
	)
	return &Agent{
		Name:      "opencode " + version,
		Version:   version,
		Argv:      []string{bin, "acp"},
		Env:       env,
		Dir:       project,
		Home:      home,
		ConfigDir: configDir,
	}
}
