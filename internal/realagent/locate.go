package realagent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acp-proxy/acp-proxy/internal/testbin"
)

// RequireEnv names the variable that turns a missing agent into a failure.
const RequireEnv = "REQUIRE_AGENTS"

// agentsDir is testdata/agents under the module root.
func agentsDir() (string, error) {
	root, err := testbin.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "agents"), nil
}

// installed returns the absolute path of rel under testdata/agents, or
// skips (fails with REQUIRE_AGENTS=1) when it is missing.
func installed(t testing.TB, rel, installHint string) string {
	t.Helper()
	dir, err := agentsDir()
	if err != nil {
		unavailable(t, fmt.Sprintf("locate testdata/agents: %v", err))
	}
	path := filepath.Join(dir, rel)
	if _, err := os.Stat(path); err != nil {
		unavailable(t, fmt.Sprintf("%s is not installed (%v); run %s", rel, err, installHint))
	}
	return path
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
		t.Fatalf("real agent unavailable with %s=1: %s", RequireEnv, why)
	}
	t.Skipf("real agent unavailable (set %s=1 to fail instead): %s", RequireEnv, why)
}

func npmHint(dir string) string {
	return fmt.Sprintf("`npm install --no-audit --no-fund` in testdata/agents/%s", dir)
}
