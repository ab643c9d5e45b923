package realagent

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/testbin"
)

// RequireEnv names the variable that turns a missing agent into a failure.
const RequireEnv = "REQUIRE_AGENTS"

// ModulesEnvPrefix starts the variables that point the launchers at another
// install of an agent: ACP_PROXY_AGENT_<DIR>=/abs/node_modules, where DIR is
// the testdata/agents directory name in upper case with every character
// other than a letter or digit replaced by "_" (ModulesEnv). scripts/compat-latest
// uses them to run the suite against the newest published releases.
const ModulesEnvPrefix = "ACP_PROXY_AGENT_"

// ModulesEnv is the variable that overrides testdata/agents/<dir>/node_modules.
func ModulesEnv(dir string) string {
	return ModulesEnvPrefix + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, dir)
}

// agentsDir is testdata/agents under the module root.
func agentsDir() (string, error) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "agents"), nil
}

// modules returns the node_modules directory of the install dir: the one
// ModulesEnv(dir) names, else testdata/agents/<dir>/node_modules.
func modules(dir string) (string, error) {
	if m := os.Getenv(ModulesEnv(dir)); m != "" {
		if !filepath.IsAbs(m) {
			return "", fmt.Errorf("%s=%q is not an absolute path", ModulesEnv(dir), m)
		}
		return m, nil
	}
	agents, err := agentsDir()
	if err != nil {
		return "", fmt.Errorf("locate testdata/agents: %w", err)
	}
	return filepath.Join(agents, dir, "node_modules"), nil
}

// installed returns the absolute path of rel under the node_modules of the
// install dir (see modules), or skips (fails with REQUIRE_AGENTS=1) when it
// is missing.
func installed(t testing.TB, dir, rel string) string {
	t.Helper()
	mods, err := modules(dir)
	if err != nil {
		unavailable(t, err.Error())
	}
	path := filepath.Join(mods, rel)
	if _, err := os.Stat(path); err != nil {
		unavailable(t, fmt.Sprintf("%s is not installed (%v); run %s", rel, err, npmHint(dir)))
	}
	return path
}

// packageVersion returns the version in the package.json of the npm
// package pkg (e.g. "@google/gemini-cli") installed in dir, or skips.
func packageVersion(t testing.TB, dir, pkg string) string {
	t.Helper()
	path := installed(t, dir, filepath.Join(pkg, "package.json"))
	b, err := os.ReadFile(path)
	if err != nil {
		unavailable(t, fmt.Sprintf("read %s: %v", path, err))
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Version == "" {
		unavailable(t, fmt.Sprintf("%s: no version (%v)", path, err))
	}
	return p.Version
}

// node returns the absolute path of node, or skips.
func node(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, fmt.Sprintf("node not found: %v", err))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		unavailable(t, fmt.Sprintf("node path: %v", err))
	}
	return abs
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		require.FailNowf(t, "real agent unavailable", "%s=1: %s", RequireEnv, why)
	}
	t.Skipf("real agent unavailable (set %s=1 to fail instead): %s", RequireEnv, why)
}

func npmHint(dir string) string {
	return fmt.Sprintf("`npm install --no-audit --no-fund` in testdata/agents/%s, or point %s at a node_modules directory", dir, ModulesEnv(dir))
}
