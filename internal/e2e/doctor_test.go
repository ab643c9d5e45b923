package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/procgroup"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
	"github.com/acp-proxy/acp-proxy/internal/testbin"
)

// deadURL is where the agents' model would be: initialize never asks it.
const deadURL = "http://127.0.0.1:9/"

// acp-proxy doctor recognises each real agent, started by the name its npm
// package installs (node_modules/.bin on PATH, as `npm install -g` puts it
// on a user's), and says which filters help it and the flags for each
// editor.
func TestDoctorKnowsEveryRealAgentByName(t *testing.T) {
	cases := []struct {
		agent func(t *testing.T) *realagent.Agent
		argv  []string
		want  []string
	}{
		{func(t *testing.T) *realagent.Agent {
			return realagent.Codex(t, "0.13", realagent.CodexOptions{ModelBaseURL: deadURL})
		}, []string{"codex-acp"}, []string{
			`Agent:      codex-acp 0.13.0 ("Codex")`, "Known as:   codex-acp 0.13 (@zed-industries/codex-acp)",
			"Proven:     yes: the project's real-agent tests run @zed-industries/codex-acp 0.13.0\n",
			"Registry:   not an agent of the ACP registry",
			"Zed (Zed-like):                                --shell-to-patch --deltas --terminal-output\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Codex(t, "0.16", realagent.CodexOptions{ModelBaseURL: deadURL})
		}, []string{"codex-acp"}, []string{
			`Agent:      codex-acp 0.16.0 ("Codex")`, "Known as:   codex-acp 0.14–0.16",
			"Zed (Zed-like):                                --shell-to-patch --terminal-output\n",
			"codex-api-key (env_var): Use CODEX_API_KEY.",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Codex(t, "2.6", realagent.CodexOptions{ModelBaseURL: deadURL})
		}, []string{"codex-acp"}, []string{
			`Agent:      @agentclientprotocol/codex-acp 2.6.0 ("Codex")`,
			"Known as:   codex-acp 2.6 (@agentclientprotocol/codex-acp, the registry's Codex)",
			"Proven:     yes: the project's real-agent tests run @agentclientprotocol/codex-acp 2.6.0\n",
			`Registry:   codex-acp ("Codex"): @agentclientprotocol/codex-acp, as of`,
			"Zed (Zed-like):                                --shell-to-patch\n",
			"agent-shell, codecompanion, acpx (plain):      --shell-to-patch --terminal-output\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Claude(t, realagent.ClaudeOptions{Version: "0.23", ModelURL: deadURL})
		}, []string{"claude-agent-acp"}, []string{
			`Agent:      @zed-industries/claude-agent-acp 0.23.1 ("Claude Agent")`, "Known as:   claude-agent-acp 0.23",
			"Zed (Zed-like):                                --shell-to-patch --terminal-output --expand-persisted-output\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Claude(t, realagent.ClaudeOptions{Version: "0.101", ModelURL: deadURL})
		}, []string{"claude-agent-acp"}, []string{
			`Agent:      @agentclientprotocol/claude-agent-acp 0.101.0 ("Claude Agent")`, "Known as:   claude-agent-acp 0.100–0.101",
			`Registry:   claude-acp ("Claude Agent"): @agentclientprotocol/claude-agent-acp, as of`,
			"agent-shell, codecompanion, acpx (plain):      --shell-to-patch --terminal-output --expand-persisted-output\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Gemini(t, realagent.GeminiOptions{ModelURL: deadURL})
		}, []string{"gemini", "--acp"}, []string{
			`Agent:      gemini-cli 0.61.0 ("Gemini CLI")`, "Known as:   gemini-cli 0.61",
			`Registry:   gemini ("Gemini CLI"): @google/gemini-cli, as of`,
			"Zed (Zed-like):                                none: a byte-exact relay\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Opencode(t, realagent.OpencodeOptions{ModelBaseURL: deadURL})
		}, []string{"opencode", "acp"}, []string{
			"Agent:      OpenCode 1.18.33", "Known as:   opencode 1.18",
			`Registry:   opencode ("OpenCode"): binary, as of`,
			"Zed (Zed-like):                                --shell-to-patch --deltas --expand-persisted-output\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Kilo(t, realagent.KiloOptions{ModelBaseURL: deadURL})
		}, []string{"kilo", "acp"}, []string{
			"Agent:      Kilo 7.7.7", "Known as:   kilo 7.7",
			"Proven:     yes: the project's real-agent tests run @kilocode/cli 7.7.7\n",
			`Registry:   kilo (`,
			"Zed (Zed-like):                                --shell-to-patch --deltas\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Qwen(t, realagent.QwenOptions{ModelBaseURL: deadURL})
		}, []string{"qwen", "--acp"}, []string{
			"Known as:   qwen-code 0.24",
			"Proven:     yes: the project's real-agent tests run @qwen-code/qwen-code 0.24.4\n",
			`Registry:   qwen-code (`,
			"Zed (Zed-like):                                none: a byte-exact relay\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Cline(t, realagent.ClineOptions{ModelBaseURL: deadURL})
		}, []string{"cline", "--acp"}, []string{
			"Agent:      cline 3.0.65", "Known as:   cline 3.0",
			"Proven:     yes: the project's real-agent tests run cline 3.0.65\n",
			`Registry:   cline ("Cline"): cline, as of`,
			"Zed (Zed-like):                                --deltas\n",
			"agent-shell, codecompanion, acpx (plain):      --deltas\n",
		}},
		{func(t *testing.T) *realagent.Agent {
			return realagent.Pi(t, realagent.PiOptions{ModelBaseURL: deadURL})
		}, []string{"pi-acp"}, []string{
			`Agent:      pi-acp 0.0.34 ("pi ACP adapter")`, "Known as:   pi-acp 0.0",
			"Proven:     yes: the project's real-agent tests run pi-acp 0.0.34\n",
			`Registry:   pi-acp ("pi ACP"): pi-acp, as of`,
			"Zed (Zed-like):                                none: a byte-exact relay\n",
			"agent-shell, codecompanion, acpx (plain):      --terminal-output\n",
		}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.argv, " "), func(t *testing.T) {
			agent := c.agent(t)
			out, stderr, err := runDoctor(t, agent, c.argv...)
			require.NoError(t, err, "stderr: %s", stderr)
			for _, want := range c.want {
				assert.Contains(t, out, want)
			}
			// Offline, with the mock model's provider and a dummy key
			// where the agent needs one, each starts a session.
			assert.Contains(t, out, "Session:    session/new started one (")
			bin := filepath.Join(nodeModules(t, agent), ".bin", c.argv[0])
			assert.Contains(t, out, `"--", "`+bin+`"`, "the config names the agent by its absolute path")
			assert.Contains(t, out, `"command": "`+proxyBin(t)+`"`, "and acp-proxy by its own")
		})
	}
}

// An agent other than the known ones gets the general advice, saying so.
func TestDoctorGivesAnUnknownAgentTheGeneralAdvice(t *testing.T) {
	// The acp-go-sdk agent is an ACP agent doctor has never heard of.
	cmd := exec.Command(proxyBin(t), "doctor", "--", testbin.Build(t, "./internal/sdkagent"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	require.NoError(t, err, "stderr: %s", stderr.String())
	out := string(b)
	assert.Contains(t, out, "Known as:   not one the proxy is proven against: this is the general advice")
	assert.Contains(t, out, "Registry:   not an agent of the ACP registry")
	assert.Contains(t, out, "agent-shell, codecompanion, acpx (plain):      --shell-to-patch --deltas --terminal-output\n")
}

// runDoctor runs `acp-proxy doctor -- argv…` in agent's environment, with
// its packages' commands on PATH.
func runDoctor(t *testing.T, agent *realagent.Agent, argv ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(proxyBin(t), append([]string{"doctor", "--timeout", "2m", "--"}, argv...)...)
	cmd.Dir = agent.Dir
	for _, kv := range agent.Env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + filepath.Join(nodeModules(t, agent), ".bin") + string(filepath.ListSeparator) + path
		}
		cmd.Env = append(cmd.Env, kv)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.WaitDelay = 10 * time.Second
	if err = cmd.Start(); err != nil {
		return "", "", err
	}
	// doctor stops the agent it probed, with all it started.
	checkLeft := procgroup.Watch(t, cmd.Process.Pid)
	err = cmd.Wait()
	checkLeft()
	return o.String(), e.String(), err
}

// nodeModules is the node_modules directory agent's launcher runs from.
func nodeModules(t *testing.T, agent *realagent.Agent) string {
	t.Helper()
	for _, arg := range agent.Argv {
		if i := strings.Index(arg, string(filepath.Separator)+"node_modules"+string(filepath.Separator)); i >= 0 {
			return arg[:i+len("/node_modules")]
		}
	}
	require.FailNowf(t, "no node_modules in the agent's command line", "%q", agent.Argv)
	return ""
}

// Each registry agent that installs here and refuses a session until its
// user signs in (auggie, Copilot, droid, grok, qoder), started as a user
// who has not signed in: doctor's session/new gets "authentication
// required", and the report says it does not work as things are, and how
// to sign in; not that it works. grok-build answers with no agentInfo,
// auggie advertises no sign-in method: each gets a line saying so. doctor
// tells grok-build's users what --policy stops before it runs.
func TestDoctorSaysHowToSignInToEachRegistryAgent(t *testing.T) {
	says := map[string][]string{
		"auggie":             {"To sign in: run `auggie login` in a terminal", "Sign-in methods: none advertised: no editor can sign it in"},
		"github-copilot-cli": {"To sign in: run `copilot login` in a terminal, or set COPILOT_GITHUB_TOKEN"},
		"github-copilot":     {"To sign in: an editor that authenticates with github_oauth"},
		"factory-droid":      {"To sign in: set FACTORY_API_KEY"},
		"grok-build": {"Agent:      no agentInfo in its answer (ACP leaves it optional): known by its command only\n",
			"To sign in: run `grok login` in a terminal, or set XAI_API_KEY (an xAI API key) where the editor sees it",
			// its initialize advertises blocking pre-tool hooks, which the policy answers
			"any (grok-build: its default, --always-approve): every call, before it runs and before the agent asks anyone"},
		"qoder": {"To sign in: run `qodercli login` in a terminal"},
	}
	for _, a := range realagent.SignInAgents {
		t.Run(a.ID, func(t *testing.T) {
			agent := realagent.NotSignedIn(t, a)
			out, stderr, err := runDoctor(t, agent, append([]string{filepath.Base(agent.Argv[0])}, agent.Argv[1:]...)...)
			require.NoError(t, err, "stderr: %s", stderr)
			assert.Contains(t, out, "Registry:   "+a.ID+" (")
			assert.Contains(t, out, "Session:    refused: it needs a sign-in first (")
			assert.NotContains(t, out, "Session:    session/new started one")
			words := strings.Join(strings.Fields(out), " ") // as it reads, wrapped or not
			for _, want := range append(says[a.ID], "no config starts a session until it is signed in") {
				assert.Contains(t, words, strings.Join(strings.Fields(want), " "))
			}
		})
	}
}

// grok-build with XAI_API_KEY set where it runs starts a session with no
// sign-in, as doctor's advice says (the key is not checked until a prompt
// goes to the model).
func TestDoctorOnGrokWithAnAPIKeyStartsASession(t *testing.T) {
	i := slices.IndexFunc(realagent.SignInAgents, func(a realagent.SignInAgent) bool { return a.ID == "grok-build" })
	require.GreaterOrEqual(t, i, 0)
	agent := realagent.NotSignedIn(t, realagent.SignInAgents[i])
	agent.Env = append(agent.Env, "XAI_API_KEY=xai-not-a-real-key")
	out, stderr, err := runDoctor(t, agent, append([]string{filepath.Base(agent.Argv[0])}, agent.Argv[1:]...)...)
	require.NoError(t, err, "stderr: %s", stderr)
	assert.Contains(t, out, "Session:    session/new started one")
	assert.NotContains(t, out, "needs a sign-in first")
}
