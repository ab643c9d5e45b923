package realagent

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// CodexOptions configures a codex-acp run (docs/agents.md, "Running the
// agents offline").
type CodexOptions struct {
	// ModelBaseURL is the mock provider's base URL,
	// mockmodel.Responses.BaseURL(). Required.
	ModelBaseURL string
	// UnifiedExec selects the model's shell tool: true gives exec_command
	// (a PTY); false gives shell_command (0.16) or shell (0.13). It is
	// written to config.toml either way.
	UnifiedExec bool
	// ApprovalPolicy is codex's approval_policy; empty means "never".
	// "untrusted" makes the agent ask session/request_permission.
	ApprovalPolicy string
	// SandboxMode is codex's sandbox_mode; empty means "danger-full-access".
	SandboxMode string
	// ExtraConfig is TOML inserted after the top-level keys, before the
	// [model_providers.mock] and [features] tables (so it must not
	// declare those).
	ExtraConfig string
	// AgentMode is codex-acp 2.x's INITIAL_AGENT_MODE ("read-only",
	// "workspace-write", "agent", "agent-full-access"); empty means
	// "agent-full-access", which runs every command without asking. 2.x
	// sets approval and sandbox from its mode and ignores ApprovalPolicy
	// and SandboxMode; "workspace-write" asks permission for a command
	// the model asks to run outside the sandbox
	// (mockmodel.Script.Escalate). The 0.x releases ignore it.
	AgentMode string
}

// codexVersions are the codex-acp release lines by the version the tests
// name.
var codexVersions = map[string]agentPackage{
	"0.13": {"codex-acp", "codex-acp-0.13", "@zed-industries/codex-acp"},
	"0.16": {"codex-acp", "codex-acp-0.16", "@zed-industries/codex-acp"},
	// The ACP registry's Codex since 2.0: a TypeScript adapter on codex's
	// app-server, not a later release of the Rust one.
	"2.6": {"codex-acp", "codex-acp-2.6", "@agentclientprotocol/codex-acp"},
}

// CodexVersions are the versions Codex accepts, oldest first.
var CodexVersions = []string{"0.13", "0.16", "2.6"}

// CodexIsAppServer reports whether version is a release of the TypeScript
// adapter on codex's app-server (@agentclientprotocol/codex-acp 2.x).
func CodexIsAppServer(version string) bool { return strings.HasPrefix(version, "2.") }

// Codex returns the launch configuration of codex-acp version (one of
// CodexVersions: zed-industries/codex-acp "0.13" or "0.16", the Rust
// adapter; agentclientprotocol/codex-acp "2.6", the TypeScript one), with
// CODEX_HOME holding a config.toml that points at the mock model.
func Codex(t testing.TB, version string, opts CodexOptions) *Agent {
	t.Helper()
	p := releaseLine(t, codexVersions, version)
	requireModel(t, opts.ModelBaseURL, "CodexOptions.ModelBaseURL")
	d := newDirs(t, ".codex") // CODEX_HOME
	writeFile(t, filepath.Join(d.config, "config.toml"), codexConfig(opts))
	env := append(baseEnv(d.home), "CODEX_HOME="+d.config)
	if !CodexIsAppServer(version) {
		bin, installedVersion := p.locate(t, "@zed-industries/codex-acp-linux-x64/bin/codex-acp")
		return d.agent(p, installedVersion, []string{bin}, env)
	}
	index, installedVersion := p.locate(t, p.npm+"/dist/index.js")
	// The adapter starts `codex app-server`: the codex CLI npm installs beside
	// it, as npx puts it on PATH.
	codex := installed(t, p.dir, filepath.Join(".bin", "codex"))
	mode := opts.AgentMode
	if mode == "" {
		mode = "agent-full-access"
	}
	env = append(env, "CODEX_PATH="+codex, "INITIAL_AGENT_MODE="+mode)
	return d.agent(p, installedVersion, []string{node(t), index}, env)
}

func codexConfig(opts CodexOptions) string {
	approval := opts.ApprovalPolicy
	if approval == "" {
		approval = "never"
	}
	sandbox := opts.SandboxMode
	if sandbox == "" {
		sandbox = "danger-full-access"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model = %q\n", "mock-model")
	fmt.Fprintf(&b, "model_provider = %q\n", "mock")
	fmt.Fprintf(&b, "approval_policy = %q\n", approval)
	fmt.Fprintf(&b, "sandbox_mode = %q\n", sandbox)
	b.WriteString(opts.ExtraConfig)
	b.WriteString("\n[model_providers.mock]\n")
	fmt.Fprintf(&b, "name = %q\n", "mock")
	fmt.Fprintf(&b, "base_url = %q\n", opts.ModelBaseURL)
	fmt.Fprintf(&b, "wire_api = %q\n", "responses")
	b.WriteString("request_max_retries = 0\nstream_max_retries = 0\n")
	b.WriteString("\n[features]\n")
	fmt.Fprintf(&b, "unified_exec = %s\n", strconv.FormatBool(opts.UnifiedExec))
	return b.String()
}
