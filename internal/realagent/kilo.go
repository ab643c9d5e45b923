package realagent

import (
	"path/filepath"
	"testing"
)

// KiloOptions configures a kilo run.
type KiloOptions struct {
	// ModelBaseURL is the mock OpenAI-compatible API,
	// mockmodel.Chat.BaseURL(). Required.
	ModelBaseURL string
	// Ask makes kilo ask session/request_permission before bash and edits
	// ("permission": {"bash": "ask", "edit": "ask"}), as for opencode.
	Ask bool
}

var kiloPackage = agentPackage{"kilo", "kilo", "@kilocode/cli"}

// Kilo returns the launch configuration of `kilo acp` (@kilocode/cli, its
// linux-x64 binary) offline. kilo is a fork of opencode and takes the same
// configuration, under its own names: $XDG_CONFIG_HOME/kilo/kilo.json and
// KILO_* variables.
func Kilo(t testing.TB, opts KiloOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "KiloOptions.ModelBaseURL")
	bin, version := kiloPackage.locate(t, "@kilocode/cli-linux-x64/bin/kilo")
	d := newDirs(t, ".config/kilo")                 // XDG_CONFIG_HOME/kilo
	config := opencodeConfig(OpencodeOptions(opts)) // the same options: kilo is an opencode fork
	config["$schema"] = "https://app.kilo.ai/config.json"
	writeJSON(t, filepath.Join(d.config, "kilo.json"), config)
	writeOpencodePlugin(t, d.config, "@kilocode/plugin", version)
	env := append(baseEnv(d.home), opencodeXDG(d.home)...)
	env = append(env,
		"KILO_DISABLE_MODELS_FETCH=1",
		"KILO_DISABLE_AUTOUPDATE=1",
		"KILO_DISABLE_SHARE=1",
		"KILO_DISABLE_LSP_DOWNLOAD=1",
		"KILO_TELEMETRY_LEVEL=off",
		"npm_config_registry="+opencodeDeadRegistry,
	)
	return d.agent(kiloPackage, version, []string{bin, "acp"}, env)
}
