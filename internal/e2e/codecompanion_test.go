package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// codecompanionInitialize are the initialize params of codecompanion.nvim
// v19.22's ACP adapters (their `parameters`, the same in every preset).
var codecompanionInitialize = map[string]any{
	"protocolVersion":    1,
	"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}},
	"clientInfo":         map[string]any{"name": "CodeCompanion.nvim", "version": "1.0.0"},
}

// codecompanion connects as v19.22 does before a chat's first prompt:
// initialize; authenticate with the adapter's auth_method when the agent
// advertises any method, giving up when it does not advertise that one;
// session/new. Run with the command and auth_method of the config doctor
// prints, against each real agent, the connection must get that far.
func TestCodecompanionConfigFromDoctorConnectsToEachRealAgent(t *testing.T) {
	codex := func(v string) func(t *testing.T) *realagent.Agent {
		return func(t *testing.T) *realagent.Agent {
			return realagent.Codex(t, v, realagent.CodexOptions{ModelBaseURL: deadURL})
		}
	}
	cases := []struct {
		name  string
		agent func(t *testing.T) *realagent.Agent
		argv  []string
		env   []string // set where doctor and the editor run
		// method is the auth_method doctor must name ("" for none);
		// answers says the agent answers authenticate with it offline
		// (a ChatGPT login waits for a browser, cline asks its service),
		// in the editor's environment: env, and then editorEnv, what
		// doctor said to set where the editor sees it.
		method    string
		answers   bool
		editorEnv []string
	}{
		{"codex 0.13, CODEX_API_KEY", codex("0.13"), []string{"codex-acp"}, []string{"CODEX_API_KEY=dummy"}, "codex-api-key", true, nil},
		{"codex 0.16, CODEX_API_KEY", codex("0.16"), []string{"codex-acp"}, []string{"CODEX_API_KEY=dummy"}, "codex-api-key", true, nil},
		{"codex 0.16, OPENAI_API_KEY", codex("0.16"), []string{"codex-acp"}, []string{"OPENAI_API_KEY=dummy"}, "openai-api-key", true, nil},
		// No key and no ChatGPT login: chatgpt would start no session (it
		// waits for a login); doctor names the key method and says to
		// set its key, with which the config starts one.
		{"codex 0.16, no key", codex("0.16"), []string{"codex-acp"}, nil, "codex-api-key", true, []string{"CODEX_API_KEY=dummy"}},
		{"codex 2.6, OPENAI_API_KEY", codex("2.6"), []string{"codex-acp"}, []string{"OPENAI_API_KEY=dummy"}, "api-key", true, nil},
		{"codex 2.6, no key", codex("2.6"), []string{"codex-acp"}, nil, "api-key", true, []string{"OPENAI_API_KEY=dummy"}},
		{"claude 0.23", func(t *testing.T) *realagent.Agent {
			return realagent.Claude(t, realagent.ClaudeOptions{Version: "0.23", ModelURL: deadURL})
		}, []string{"claude-agent-acp"}, nil, "", true, nil},
		{"claude 0.101", func(t *testing.T) *realagent.Agent {
			return realagent.Claude(t, realagent.ClaudeOptions{Version: "0.101", ModelURL: deadURL})
		}, []string{"claude-agent-acp"}, nil, "", true, nil},
		// realagent gives gemini and qwen a dummy key: the key method fits.
		{"gemini", func(t *testing.T) *realagent.Agent {
			return realagent.Gemini(t, realagent.GeminiOptions{ModelURL: deadURL})
		}, []string{"gemini", "--acp"}, nil, "gemini-api-key", true, nil},
		{"opencode", func(t *testing.T) *realagent.Agent {
			return realagent.Opencode(t, realagent.OpencodeOptions{ModelBaseURL: deadURL})
		}, []string{"opencode", "acp"}, nil, "opencode-login", true, nil},
		{"kilo", func(t *testing.T) *realagent.Agent {
			return realagent.Kilo(t, realagent.KiloOptions{ModelBaseURL: deadURL})
		}, []string{"kilo", "acp"}, nil, "kilo-login", true, nil},
		{"qwen", func(t *testing.T) *realagent.Agent {
			return realagent.Qwen(t, realagent.QwenOptions{ModelBaseURL: deadURL})
		}, []string{"qwen", "--acp"}, nil, "openai", true, nil},
		{"cline", func(t *testing.T) *realagent.Agent {
			return realagent.Cline(t, realagent.ClineOptions{ModelBaseURL: deadURL})
		}, []string{"cline", "--acp"}, nil, "cline", false, nil},
		{"pi-acp", func(t *testing.T) *realagent.Agent {
			return realagent.Pi(t, realagent.PiOptions{ModelBaseURL: deadURL})
		}, []string{"pi-acp"}, nil, "pi_terminal_login", true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agent := c.agent(t)
			agent.Env = append(agent.Env, c.env...)
			out, stderr, err := runDoctor(t, agent, c.argv...)
			require.NoError(t, err, "stderr: %s", stderr)
			command, method := codecompanionConfig(t, out)
			assert.Equal(t, c.method, method, "the auth_method doctor names")
			bin := filepath.Join(nodeModules(t, agent), ".bin")
			require.Equal(t, filepath.Join(bin, c.argv[0]), command[slices.Index(command, "--")+1], "the agent, by its absolute path")

			if c.editorEnv != nil {
				words := strings.Join(strings.Fields(out), " ")
				for _, kv := range c.editorEnv {
					name, _, _ := strings.Cut(kv, "=")
					assert.Regexp(t, `With (\S+ or )?`+name+`( or \S+)? set where the editor sees it, `+method, words, "doctor says to set it")
				}
			}
			client := acpclient.Start(t, acpclient.Options{Argv: command, Env: withPath(append(agent.Env, c.editorEnv...), bin), Dir: agent.Dir})
			var init struct {
				AuthMethods []struct{ ID string } `json:"authMethods"`
			}
			require.NoError(t, json.Unmarshal(client.Call("initialize", codecompanionInitialize), &init))
			var ids []string
			for _, m := range init.AuthMethods {
				ids = append(ids, m.ID)
			}
			if method == "" {
				assert.Empty(t, ids, "doctor names no auth_method only for an agent that advertises none")
			} else {
				require.Contains(t, ids, method, "doctor named a method the agent does not advertise: codecompanion stops there")
			}
			if !c.answers {
				return
			}
			if method != "" {
				client.Call("authenticate", map[string]any{"methodId": method})
			}
			client.NewSession(agent.Dir)
		})
	}
}

var (
	luaCommand = regexp.MustCompile(`commands = \{ default = \{ (.*) \} \},`)
	luaString  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	luaAuth    = regexp.MustCompile(`auth_method = "([^"]*)"`)
)

// codecompanionConfig is the command and the auth_method ("" when none)
// of the codecompanion setup call in doctor's report.
func codecompanionConfig(t *testing.T, report string) (command []string, authMethod string) {
	t.Helper()
	_, block, ok := strings.Cut(report, "require(\"codecompanion\").setup({")
	require.True(t, ok, "no codecompanion setup call in:\n%s", report)
	block, _, _ = strings.Cut(block, "\n  })\n")
	m := luaCommand.FindStringSubmatch(block)
	require.NotNil(t, m, "no commands.default in:\n%s", block)
	for _, q := range luaString.FindAllString(m[1], -1) {
		s, err := strconv.Unquote(q)
		require.NoError(t, err, q)
		command = append(command, s)
	}
	if a := luaAuth.FindStringSubmatch(block); a != nil {
		authMethod = a[1]
	}
	return command, authMethod
}

// withPath is env with dir first on its PATH, as runDoctor runs doctor.
func withPath(env []string, dir string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + dir + string(filepath.ListSeparator) + path
		}
		out = append(out, kv)
	}
	return out
}
