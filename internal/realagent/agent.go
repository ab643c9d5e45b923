package realagent

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// agentPackage is one installed release line of an agent: the agent's name,
// its install directory under testdata/agents and its npm package there.
type agentPackage struct{ agent, dir, npm string }

// locate returns the absolute path of the agent's entry point, entry
// (slash-separated, under the install directory's node_modules), and the
// installed version of the npm package; it skips when either is missing.
func (p agentPackage) locate(t testing.TB, entry string) (path, version string) {
	t.Helper()
	return installed(t, p.dir, filepath.FromSlash(entry)), packageVersion(t, p.dir, p.npm)
}

// releaseLine is the release line named version in versions, or fails the
// test.
func releaseLine(t testing.TB, versions map[string]agentPackage, version string) agentPackage {
	t.Helper()
	p, ok := versions[version]
	require.True(t, ok, "realagent: unknown version %q; known: %q", version, slices.Sorted(maps.Keys(versions)))
	return p
}

// requireModel fails the test when a launcher is not given the URL of its
// mock model, the option named option.
func requireModel(t testing.TB, url, option string) {
	t.Helper()
	require.NotEmpty(t, url, "realagent: %s (the mock model) is required", option)
}

// dirs are one agent's private HOME, its config directory and the project
// directory.
type dirs struct{ home, config, project string }

// newDirs makes the private HOME, the config directory configName
// (slash-separated, under HOME) and the project directory. The project
// lives outside HOME so agents do not mistake HOME for a project.
func newDirs(t testing.TB, configName string) dirs {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	d := dirs{home, filepath.Join(home, filepath.FromSlash(configName)), filepath.Join(root, "project")}
	for _, dir := range []string{d.home, d.config, d.project} {
		require.NoError(t, os.MkdirAll(dir, 0o755), "realagent")
	}
	return d
}

// agent is the Agent of version of p that runs argv with env in the
// project directory.
func (d dirs) agent(p agentPackage, version string, argv, env []string) *Agent {
	return &Agent{
		Name:      p.agent + " " + version,
		Version:   version,
		Argv:      argv,
		Env:       env,
		Dir:       d.project,
		Home:      d.home,
		ConfigDir: d.config,
	}
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
