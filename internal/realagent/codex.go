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
}

// codexVersions are the codex-acp release lines by the version the tests
// name.
var codexVersions = map[string]agentPackage{
	"0.13": {"codex-acp", "codex-acp-0.13", "@zed-industries/codex-acp"},
	"0.16": {"codex-acp", "codex-acp-0.16", "@zed-industries/codex-acp"},
}

// Codex returns the launch configuration of zed-industries/codex-acp
// version ("0.13" or "0.16"), with CODEX_HOME holding a config.toml that
// points at the mock model.
func Codex(t testing.TB, version string, opts CodexOptions) *Agent {
	t.Helper()
	p := releaseLine(t, codexVersions, version)
	requireModel(t, opts.ModelBaseURL, "CodexOptions.ModelBaseURL")
	bin, installedVersion := p.locate(t, "@zed-industries/codex-acp-linux-x64/bin/codex-acp")
	d := newDirs(t, ".codex") // CODEX_HOME
	writeFile(t, filepath.Join(d.config, "config.toml"), codexConfig(opts))
	return d.agent(p, installedVersion, []string{bin}, append(baseEnv(d.home), "CODEX_HOME="+d.config))
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
