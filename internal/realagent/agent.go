package realagent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Agent is how to launch one real agent offline: run Argv with Env in Dir,
// directly or wrapped as `acp-proxy [flags] -- Argv...`.
type Agent struct {
	Name      string   // e.g. "codex-acp 0.13.0": package and installed version
	Version   string   // the installed package's version, e.g. "0.13.0"
	Argv      []string // absolute paths
	Env       []string // the whole environment, private to this agent
	Dir       string   // a temporary project directory, the session cwd
	Home      string   // the private HOME
	ConfigDir string   // CODEX_HOME, CLAUDE_CONFIG_DIR, gemini's or opencode's config directory
}

// newDirs makes the private HOME, config and project directories. The
// project lives outside HOME so agents do not mistake HOME for a project.
func newDirs(t testing.TB, configName string) (home, config, project string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	config = filepath.Join(home, configName)
	project = filepath.Join(root, "project")
	for _, d := range []string{home, config, project} {
		require.NoError(t, os.MkdirAll(d, 0o755), "realagent")
	}
	return home, config, project
}

// baseEnv is the environment every agent gets: PATH to find node and the
// shells, a private HOME, and a UTF-8 locale. Nothing else is inherited, so
// a developer's API keys or config never reach the agent.
func baseEnv(home string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LANG=C.UTF-8",
		"TERM=dumb",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755), "realagent")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644), "realagent: write %s", path)
}
