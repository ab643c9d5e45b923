package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// issuePolicy is the issue's policy: allow npm test, deny git push and any write outside the
// session's directory; everything else is asked.
const issuePolicy = "allow Bash(npm test)\ndeny Bash(git push:*)\ndeny Edit(../**)\n"

// writePolicy writes a policy file holding text and returns its path.
func writePolicy(t *testing.T, text string) string {
	t.Helper()
	pol := filepath.Join(t.TempDir(), "p.policy")
	require.NoError(t, os.WriteFile(pol, []byte(text), 0o644))
	return pol
}

// npmTestProject makes agent's directory an npm project whose `npm test`
// leaves a file "tested", and returns the agent's environment for it: npm
// asks no registry whether it is out of date.
func npmTestProject(t *testing.T, agent *realagent.Agent) (env []string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(agent.Dir, "package.json"),
		[]byte(`{"name":"p","version":"1.0.0","scripts":{"test":"touch tested"}}`), 0o644))
	return append(agent.Env[:len(agent.Env):len(agent.Env)], "npm_config_update_notifier=false")
}

// startUnderPolicy starts a test client with the proxy, under the policy
// in the file pol and with flags, in front of agent run with env in its
// directory.
func startUnderPolicy(t *testing.T, agent *realagent.Agent, env []string, pol string, flags ...string) *acpclient.Client {
	t.Helper()
	argv := append([]string{proxyBin(t), "--policy", pol}, flags...)
	return acpclient.Start(t, acpclient.Options{
		Argv:         append(append(argv, "--"), agent.Argv...),
		Env:          env,
		Dir:          agent.Dir,
		Capabilities: clientCaps(false),
	})
}

// TestPolicyRealAgents: real agents, offline, in the mode in which they ask the client, under
// the issue's policy. The model runs `npm test` and then a git push that would leave a mark if
// it ran: npm test runs without the user being asked, the push is refused before it runs, and
// the user is told which rule refused it.
func TestPolicyRealAgents(t *testing.T) {
	cases := []struct{ agent, mode string }{
		{"claude-0.101", ""},
		{"codex-0.16", "untrusted"},
		{"codex-2.6", "workspace-write"},
		{"opencode", "ask"},
	}
	for _, tc := range cases {
		t.Run(tc.agent, func(t *testing.T) {
			script := mockmodel.Script{Commands: []string{"npm test", "git push origin main || touch pushed"}}
			s := launchScript(t, tc.agent, script, false, tc.mode)
			dir := s.agent.Dir
			c := startUnderPolicy(t, s.agent, npmTestProject(t, s.agent), writePolicy(t, issuePolicy))
			c.Initialize()
			sid := c.NewSession(dir)
			c.Prompt(sid, "run the tests, then push")

			assert.FileExists(t, filepath.Join(dir, "tested"), "npm test ran")
			assert.NoFileExists(t, filepath.Join(dir, "pushed"), "the push never ran")
			for _, p := range c.PermissionRequests() {
				assert.NotContains(t, string(p), "npm test", "the user was asked about npm test")
				assert.NotContains(t, string(p), "git push", "the user was asked about the push")
			}
			told := false
			for _, l := range clientLines(c) {
				told = told || bytes.Contains(l, []byte(`denied by the policy (line 2: deny Bash(git push:*))`))
			}
			assert.True(t, told, "the user was told which rule refused the push")
			if t.Failed() {
				t.Log(c.Report())
				for _, l := range clientLines(c) {
					if strings.Contains(string(l), "tool_call") || strings.Contains(string(l), "permission") {
						t.Logf("%.500s", l)
					}
				}
			}
		})
	}
}

// TestPolicyGeminiIsAsked: gemini-cli 0.61's permission request names the command only in its
// title, which the policy never reads as a command: neither call is decided for the user, both
// are asked (the test client allows them), and nothing is refused on a guess.
func TestPolicyGeminiIsAsked(t *testing.T) {
	script := mockmodel.Script{Commands: []string{"npm test", "git push origin main || touch pushed"}}
	s := launchScript(t, "gemini", script, false, "")
	dir := s.agent.Dir
	c := startUnderPolicy(t, s.agent, npmTestProject(t, s.agent), writePolicy(t, issuePolicy))
	c.Initialize()
	c.Prompt(c.NewSession(dir), "run the tests, then push")
	var asked []string
	for _, p := range c.PermissionRequests() {
		asked = append(asked, string(p))
	}
	all := strings.Join(asked, "\n")
	assert.Contains(t, all, "npm test", "the user decides npm test")
	assert.Contains(t, all, "git push", "the user decides the push")
	assert.FileExists(t, filepath.Join(dir, "tested"))
}

// TestPolicyUnaskedIsMarked: an agent that runs commands without asking (opencode's default,
// codex-acp 0.16 with approval_policy "never") cannot be stopped before a call runs: the call
// the policy would have stopped runs, its final update says so and names the rule, and the
// turn is cancelled; the session goes on answering.
func TestPolicyUnaskedIsMarked(t *testing.T) {
	for _, tc := range []struct{ agent, mode string }{{"opencode", ""}, {"codex-0.16", "never"}} {
		t.Run(tc.agent, func(t *testing.T) {
			script := mockmodel.Script{Commands: []string{"git push origin main || touch pushed"}}
			s := launchScript(t, tc.agent, script, false, tc.mode)
			dir := s.agent.Dir
			c := startUnderPolicy(t, s.agent, s.agent.Env, writePolicy(t, "allow Bash(npm test)\nstop Bash(git push:*)\n"))
			c.Initialize()
			stop := c.Prompt(c.NewSession(dir), "push")
			t.Logf("stop reason: %s", stop)
			assert.Empty(t, c.PermissionRequests(), "the agent asked nothing")
			assert.FileExists(t, filepath.Join(dir, "pushed"), "the call ran: nothing stops what the agent runs without asking")
			marked := false
			for _, l := range clientLines(c) {
				marked = marked || bytes.Contains(l, []byte(`ran without asking, denied by policy line 2`))
			}
			assert.True(t, marked, "the call's final update says it ran without asking, and which rule")
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// TestPolicyGrokHooks: grok-build 1.0 runs the client's pre-tool hooks (x.ai/hooks) before
// every tool call, in every mode: with --policy the proxy registers one and answers it, so the
// issue's policy binds before a call runs even with --always-approve, where grok asks nobody.
// The model runs npm test, a push, a shell write outside the project, its own write tool
// outside the project, and `echo x > asked`, which no rule decides. npm test runs without the user
// being asked; the push and both writes never run, and grok tells the client and the model
// which rule refused them; `echo x > asked` goes to grok's own permission flow: asked in its
// default mode, run unasked with --always-approve. Each decision is a note of the trace.
func TestPolicyGrokHooks(t *testing.T) {
	for _, alwaysApprove := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "always-approve"}[alwaysApprove], func(t *testing.T) {
			outside := t.TempDir() // outside the session's directory
			shellOut, writeOut := filepath.Join(outside, "shell.txt"), filepath.Join(outside, "write.txt")
			model := mockmodel.NewChat(t, mockmodel.Script{
				Commands: []string{"npm test", "git push origin main || touch pushed", "echo out > " + shellOut, "echo x > asked"},
				Calls:    []mockmodel.Call{{Tool: "write", Args: map[string]any{"file_path": writeOut, "content": "x\n"}}},
			})
			agent := realagent.Grok(t, realagent.GrokOptions{ModelBaseURL: model.BaseURL(), AlwaysApprove: alwaysApprove})
			dir := agent.Dir
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			c := startUnderPolicy(t, agent, npmTestProject(t, agent), writePolicy(t, issuePolicy), "--record", trace)
			c.Initialize()
			c.Prompt(c.NewSession(dir), "run the tests, push, write")

			assert.FileExists(t, filepath.Join(dir, "tested"), "npm test ran")
			assert.FileExists(t, filepath.Join(dir, "asked"), "the call no rule decides ran")
			assert.NoFileExists(t, filepath.Join(dir, "pushed"), "the push never ran")
			assert.NoFileExists(t, shellOut, "the shell write outside the project never ran")
			assert.NoFileExists(t, writeOut, "the write tool never wrote outside the project")
			var asked []string
			for _, p := range c.PermissionRequests() {
				asked = append(asked, string(p))
			}
			all := strings.Join(asked, "\n")
			for _, s := range []string{"npm test", "git push", shellOut, writeOut} {
				assert.NotContains(t, all, s, "the user was asked about %s", s)
			}
			if alwaysApprove {
				assert.Empty(t, asked, "--always-approve asks nothing")
			} else {
				assert.Contains(t, all, "echo x > asked", "the call no rule decides is the user's")
			}
			toClient := string(bytes.Join(clientLines(c), []byte("\n")))
			toModel := ""
			for _, r := range model.Requests() {
				toModel += string(r.Body)
			}
			for _, rule := range []string{"line 2: deny Bash(git push:*)", "line 3: deny Edit(../**)"} {
				denied := "Hook denied: acp-proxy: denied by the policy (" + rule + ")"
				assert.Contains(t, toClient, denied, "the client is told")
				assert.Contains(t, toModel, denied, "the model is told")
			}
			assert.Equal(t, 3, strings.Count(toClient, `"status":"failed"`), "the three refused calls failed")
			require.NoError(t, c.CloseStdin())
			select { // the proxy ends with its client: the trace is complete
			case <-c.Exited():
			case <-time.After(30 * time.Second):
				t.Fatal("the proxy did not exit after its client closed stdin")
			}
			notes, err := os.ReadFile(trace)
			require.NoError(t, err)
			assert.Equal(t, 3, bytes.Count(notes, []byte(`"event":"deny (line`)), "the trace has each refusal")
			assert.Contains(t, string(notes), `"event":"policy: allow (line 1) (not bound)"`, "and the allow at the hook")
			if t.Failed() {
				t.Log(c.Report())
				t.Logf("model replies %q", replies(model.Requests()))
			}
		})
	}
}

// TestPolicyGrokStop: a stop rule refuses the call at grok-build's hook, before it runs, and
// cancels the turn: the model's next command never runs, and the turn ends cancelled. grok,
// cancelled at once, never ends the call it announced: the proxy ends it for the client.
func TestPolicyGrokStop(t *testing.T) {
	model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{"git push origin main || touch pushed", "echo x > after"}})
	agent := realagent.Grok(t, realagent.GrokOptions{ModelBaseURL: model.BaseURL(), AlwaysApprove: true})
	c := startUnderPolicy(t, agent, agent.Env, writePolicy(t, "allow Bash(npm test)\nstop Bash(git push:*)\n"))
	c.Initialize()
	stop := c.Prompt(c.NewSession(agent.Dir), "push")
	assert.Equal(t, "cancelled", stop, "the turn's stop reason")
	assert.NoFileExists(t, filepath.Join(agent.Dir, "pushed"), "the push never ran")
	assert.NoFileExists(t, filepath.Join(agent.Dir, "after"), "the turn ended before the next command")
	toClient := string(bytes.Join(clientLines(c), []byte("\n")))
	assert.Contains(t, toClient, `"status":"failed","content":[{"type":"content","content":{"type":"text","text":"acp-proxy: denied by the policy (line 2: stop Bash(git push:*))`,
		"the client sees the call end, failed, with the rule")
	if t.Failed() {
		t.Log(c.Report())
		t.Logf("model replies %q", replies(model.Requests()))
	}
}
