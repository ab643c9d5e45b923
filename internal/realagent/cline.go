package realagent

import (
	"path/filepath"
	"testing"
)

// ClineOptions configures a cline run.
type ClineOptions struct {
	// ModelBaseURL is the mock OpenAI-compatible API,
	// mockmodel.Chat.BaseURL(). Required.
	ModelBaseURL string
}

var clinePackage = agentPackage{"cline", "cline", "cline"}

// clineProvider is cline's provider for any OpenAI-compatible API.
const clineProvider = "openai-compatible"

// Cline returns the launch configuration of `cline --acp` (npm cline, its
// linux-x64 binary, a Bun executable) offline, with a private HOME: its
// provider is "openai-compatible" at the mock model, chosen by
// CLINE_PROVIDER; CLINE_API_KEY, which stands for a login, lets it open a
// session without one. It asks the client's permission before every tool,
// as it does by default.
//
// Besides: the session runs in this process (CLINE_SESSION_BACKEND_MODE=local),
// not in the background "hub" daemon it otherwise starts on
// 127.0.0.1:25463 and leaves running; telemetry (OpenTelemetry to
// otel.cline.bot) and the update check are off in global-settings.json;
// E2E_TEST=true turns its PostHog feature flags (data.cline.bot) into
// none, which is all that variable does in 3.0.65.
func Cline(t testing.TB, opts ClineOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "ClineOptions.ModelBaseURL")
	bin, version := clinePackage.locate(t, "@cline/cli-linux-x64/bin/cline")
	d := newDirs(t, ".cline")
	settings := filepath.Join(d.config, "data", "settings")
	// What `cline auth -p openai-compatible -k dummy -b URL` writes (its
	// model aside: cline takes only the models it lists for the provider,
	// gpt-4o here, which the mock serves as any other).
	writeJSON(t, filepath.Join(settings, "providers.json"), map[string]any{
		"version":          1,
		"lastUsedProvider": clineProvider,
		"modes":            map[string]any{},
		"providers": map[string]any{clineProvider: map[string]any{
			"settings": map[string]any{
				"provider": clineProvider,
				"apiKey":   "dummy",
				"baseUrl":  opts.ModelBaseURL,
			},
			// Without it the file does not parse and is ignored.
			"updatedAt":   "2026-01-01T00:00:00.000Z",
			"tokenSource": "manual",
		}},
	})
	writeJSON(t, filepath.Join(settings, "global-settings.json"), map[string]any{
		"telemetryOptOut":   true,
		"autoUpdateEnabled": false,
	})
	env := append(baseEnv(d.home),
		"CLINE_PROVIDER="+clineProvider,
		"CLINE_API_KEY=dummy",
		"CLINE_SESSION_BACKEND_MODE=local",
		"E2E_TEST=true",
	)
	return d.agent(clinePackage, version, []string{bin, "--acp"}, env)
}
