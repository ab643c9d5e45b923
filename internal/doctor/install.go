package doctor

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/registry"
)

// npmBins are the executables the proven releases' npm packages install (the "bin" of their
// package.json): the commands editor configs and people type, which the proven releases and
// the registry know only by package.
var npmBins = map[string][]string{
	"@zed-industries/codex-acp":             {"codex-acp"},
	"@agentclientprotocol/codex-acp":        {"codex-acp"},
	"@zed-industries/claude-agent-acp":      {"claude-agent-acp"},
	"@agentclientprotocol/claude-agent-acp": {"claude-agent-acp"},
	"@google/gemini-cli":                    {"gemini"},
	"opencode-ai":                           {"opencode"},
	"@kilocode/cli":                         {"kilo", "kilocode"},
	"@qwen-code/qwen-code":                  {"qwen"},
	"cline":                                 {"cline"},
	"pi-acp":                                {"pi-acp"},
}

// InstallHint says how to install the agent command names when it is not installed and doctor
// knows it: the npm package a proven release installs it from, newest release line first, and
// the line that installs it beside acp-proxy in ~/.local/bin (as the README does); else the ACP
// registry's binary of that name. "" for a command doctor does not know, or one given by path.
func InstallHint(command string) string {
	if strings.ContainsAny(command, `/\`) {
		return ""
	}
	name := strings.TrimSuffix(command, ".exe")
	var pkgs []string
	for _, r := range slices.Backward(proven) {
		if slices.Contains(npmBins[r.pkg], name) && !slices.Contains(pkgs, r.pkg) {
			pkgs = append(pkgs, r.pkg)
		}
	}
	if len(pkgs) > 0 {
		hint := name + " comes with the npm package " + pkgs[0]
		if len(pkgs) > 1 {
			hint += " (or " + strings.Join(pkgs[1:], ", ") + ")"
		}
		return hint + ": npm install -g --prefix ~/.local " + pkgs[0]
	}
	if e, ok := registry.Snapshot().ByCommand(filepath.Base(name)); ok {
		return name + " is the ACP registry's " + e.ID + " (" + e.Name + "), a binary: install it from the registry (an editor's agent list) or the agent's site"
	}
	return ""
}
