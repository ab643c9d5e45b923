package realagent

import (
	"testing"
)

// GrokOptions configures a grok-build run.
type GrokOptions struct {
	// ModelBaseURL is the mock OpenAI-compatible API,
	// mockmodel.Chat.BaseURL(). Required.
	ModelBaseURL string
	// AlwaysApprove starts the agent with --always-approve: it runs every
	// tool call without asking (its permissionMode is then
	// "bypassPermissions"). Off, it asks session/request_permission before
	// the commands and edits it does not itself deem safe.
	AlwaysApprove bool
}

var grokPackage = agentPackage{"grok-build", "grok", "@xai-official/grok"}

// Grok returns the launch configuration of `grok agent stdio`
// (@xai-official/grok, a native binary) with a private HOME, offline.
//
// With GROK_MODELS_BASE_URL set, grok takes its models from that
// OpenAI-compatible endpoint and authenticates with XAI_API_KEY alone: no
// sign-in, no authenticate request before session/new. It then speaks Chat
// Completions there (its session title goes to the Responses API of the
// same base URL, which the mock answers 404: grok falls back to the
// prompt's words). The environment turns off the model calls it makes on
// its own after a turn (the turn summary, the session recap, the title
// refresh, memory), the update check and feedback; its telemetry is off by
// default.
func Grok(t testing.TB, opts GrokOptions) *Agent {
	t.Helper()
	requireModel(t, opts.ModelBaseURL, "GrokOptions.ModelBaseURL")
	bin, version := grokPackage.locate(t, grokPackage.npm+"/bin/grok-native")
	d := newDirs(t, ".grok")
	env := append(baseEnv(d.home),
		"GROK_MODELS_BASE_URL="+opts.ModelBaseURL,
		"XAI_API_KEY=mock-key",
		"GROK_TURN_SUMMARY=false",
		"GROK_SESSION_RECAP=false",
		"GROK_TITLE_REFRESH=false",
		"GROK_MEMORY=false",
		"GROK_PROMPT_SUGGESTIONS=false",
		"GROK_FEEDBACK_ENABLED=false",
		"GROK_DISABLE_AUTOUPDATER=1",
	)
	argv := []string{bin, "agent"}
	if opts.AlwaysApprove {
		argv = append(argv, "--always-approve")
	}
	return d.agent(grokPackage, version, append(argv, "stdio"), env)
}
