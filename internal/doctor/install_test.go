package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An agent command that is not installed gets the package it comes with and the line that
// installs it, when doctor knows the command: the newest proven release's package first.
func TestInstallHintNamesThePackageAndTheLine(t *testing.T) {
	for _, c := range []struct {
		command, want string // "" : doctor does not know it
	}{
		{"codex-acp", "codex-acp comes with the npm package @agentclientprotocol/codex-acp (or @zed-industries/codex-acp): npm install -g --prefix ~/.local @agentclientprotocol/codex-acp"},
		{"claude-agent-acp", "claude-agent-acp comes with the npm package @agentclientprotocol/claude-agent-acp (or @zed-industries/claude-agent-acp): npm install -g --prefix ~/.local @agentclientprotocol/claude-agent-acp"},
		{"gemini", "gemini comes with the npm package @google/gemini-cli: npm install -g --prefix ~/.local @google/gemini-cli"},
		{"qwen", "qwen comes with the npm package @qwen-code/qwen-code: npm install -g --prefix ~/.local @qwen-code/qwen-code"},
		{"kilocode", "kilocode comes with the npm package @kilocode/cli: npm install -g --prefix ~/.local @kilocode/cli"},
		{"goose", `goose is the ACP registry's goose (goose), a binary: install it from the registry (an editor's agent list) or the agent's site`},
		{"no-such-agent", ""},
		{"/opt/agents/codex-acp", ""},
	} {
		assert.Equal(t, c.want, InstallHint(c.command), c.command)
	}
}

// Every proven release's package has its commands listed, as its package.json says where the
// package is installed (testdata/agents, scripts/install-agents).
func TestEveryProvenPackageHasItsCommands(t *testing.T) {
	for _, r := range proven {
		assert.NotEmpty(t, npmBins[r.pkg], "%s: which commands does it install?", r.pkg)
		manifests, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "*", "node_modules", r.pkg, "package.json"))
		for _, m := range manifests {
			b, err := os.ReadFile(m)
			require.NoError(t, err)
			var pj struct {
				Bin map[string]string `json:"bin"`
			}
			require.NoError(t, json.Unmarshal(b, &pj))
			var bins []string
			for name := range pj.Bin {
				bins = append(bins, name)
			}
			slices.Sort(bins)
			assert.Equal(t, bins, slices.Sorted(slices.Values(npmBins[r.pkg])), m)
		}
	}
}

// doctor says what --shell-to-patch does as the README and --help do: every file a command
// provably writes shows as a diff (the command is an edit only when writing is all it does).
func TestShellToPatchAdviceSaysEveryFile(t *testing.T) {
	agents := []Agent{unknown(), protocolV2(2)}
	for _, r := range proven {
		agents = append(agents, r.advice())
	}
	for _, a := range agents {
		adv := a.Filters[ShellToPatch]
		for _, v := range []Verdict{adv.ZedLike, adv.Plain} {
			assert.NotContains(t, v.Why, "one file", a.Name)
			assert.NotContains(t, v.Why, "as edits", a.Name)
			if v.Helps && strings.Contains(v.Why, "diff") {
				assert.Contains(t, v.Why, "every file", a.Name)
			}
		}
	}
}
