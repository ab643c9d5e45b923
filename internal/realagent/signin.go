package realagent

import (
	"path/filepath"
	"slices"
	"testing"
)

// SignInAgent is a registry agent that answers initialize offline but
// refuses session/new until its user signs in: its testdata/agents
// directory, npm package, the command npm links into node_modules/.bin and
// the arguments the registry starts it with.
type SignInAgent struct {
	ID, Dir, Package, Bin string
	Args                  []string
}

// SignInAgents are the registry agents of that kind whose npm package
// installs here.
var SignInAgents = []SignInAgent{
	{"auggie", "auggie", "@augmentcode/auggie", "auggie", []string{"--acp"}},
	{"github-copilot-cli", "copilot", "@github/copilot", "copilot", []string{"--acp"}},
	{"github-copilot", "copilot-language-server", "@github/copilot-language-server", "copilot-language-server", []string{"--acp"}},
	{"factory-droid", "droid", "droid", "droid", []string{"exec", "--output-format", "acp-daemon"}},
	{"grok-build", "grok", "@xai-official/grok", "grok", []string{"agent", "stdio"}},
	{"qoder", "qoder", "@qoder-ai/qodercli", "qodercli", []string{"--acp"}},
}

// NotSignedIn returns the launch configuration of a: its command in
// node_modules/.bin with the registry's arguments, with a private, empty
// HOME and no keys, as a user who has not signed in starts it.
func NotSignedIn(t testing.TB, a SignInAgent) *Agent {
	t.Helper()
	bin := installed(t, a.Dir, filepath.Join(".bin", a.Bin))
	version := packageVersion(t, a.Dir, a.Package)
	d := newDirs(t, ".config")
	p := agentPackage{a.ID, a.Dir, a.Package}
	return d.agent(p, version, append([]string{bin}, slices.Clone(a.Args)...), baseEnv(d.home))
}
