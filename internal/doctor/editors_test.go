package doctor

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The authMethods the real agents answer codecompanion's initialize with
// (captured from the releases under testdata/agents;
// internal/e2e/codecompanion_test.go checks them against the agents).
const (
	codexRustMethods = `[{"id":"chatgpt","name":"Login with ChatGPT","description":"Use your ChatGPT login with Codex CLI (requires a paid ChatGPT subscription)"},` +
		`{"type":"env_var","id":"codex-api-key","name":"Use CODEX_API_KEY","description":"Requires setting the ` + "`CODEX_API_KEY`" + ` environment variable.","vars":[{"name":"CODEX_API_KEY"}]},` +
		`{"type":"env_var","id":"openai-api-key","name":"Use OPENAI_API_KEY","description":"Requires setting the ` + "`OPENAI_API_KEY`" + ` environment variable.","vars":[{"name":"OPENAI_API_KEY"}]}]`
	codexAppServerMethods = `[{"id":"api-key","name":"API Key","description":"Use an API key to authenticate","_meta":{"api-key":{"provider":"openai"}}},` +
		`{"id":"chat-gpt","name":"ChatGPT","description":"Use ChatGPT to authenticate"}]`
	geminiMethods = `[{"id":"oauth-personal","name":"Log in with Google","description":"Log in with your Google account"},` +
		`{"id":"gemini-api-key","name":"Gemini API key","description":"Use an API key with Gemini Developer API","_meta":{"api-key":{"provider":"google"}}},` +
		`{"id":"vertex-ai","name":"Vertex AI","description":"Use an API key with Vertex AI GenAI API"},` +
		`{"id":"gateway","name":"AI API Gateway","description":"Use a custom AI API Gateway","_meta":{"gateway":{"protocol":"google","restartRequired":"false"}}}]`
	qwenMethods = `[{"id":"openai","name":"Use OpenAI API key","description":"Requires setting the ` + "`OPENAI_API_KEY`" + ` environment variable","_meta":{"type":"terminal","args":["--auth-type=openai"]}}]`
	piMethods   = `[{"id":"pi_terminal_login","name":"Launch pi in the terminal","description":"Start pi in an interactive terminal to configure API keys or login","type":"terminal","args":["--terminal-login"],"env":{}}]`
)

// reportFor is doctor's report on an agent that answered with name,
// version and authMethods, in an environment holding env.
func reportFor(t *testing.T, argv []string, name, title, version, methods string, env map[string]string) *Report {
	t.Helper()
	a := &Answer{ProtocolVersion: 1, Info: AgentInfo{Name: name, Title: title, Version: version}, Path: "/bin/" + filepath.Base(argv[0])}
	require.NoError(t, json.Unmarshal([]byte(methods), &a.AuthMethods))
	r := NewReport(a, argv, "/opt/acp-proxy", nil)
	r.LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return r
}

// The method doctor names is one the agent advertises: an API-key method
// whose variable is set here, else the agent's own sign-in, saying which
// keys would do instead.
func TestSignInIsAnAdvertisedMethodThatFitsTheEnvironment(t *testing.T) {
	codex016 := []string{"codex-acp"}
	cases := []struct {
		name, agent, version, methods string
		env                           map[string]string
		want                          string
		says                          []string
	}{
		{"codex 0.16, CODEX_API_KEY", "codex-acp", "0.16.0", codexRustMethods, map[string]string{"CODEX_API_KEY": "k"},
			"codex-api-key", []string{"CODEX_API_KEY is set here, and codex-api-key reads it"}},
		{"codex 0.16, OPENAI_API_KEY", "codex-acp", "0.16.0", codexRustMethods, map[string]string{"OPENAI_API_KEY": "k"},
			"openai-api-key", nil},
		{"codex 0.16, both: the agent's order", "codex-acp", "0.16.0", codexRustMethods, map[string]string{"OPENAI_API_KEY": "k", "CODEX_API_KEY": "k"},
			"codex-api-key", nil},
		// With no key and no ChatGPT login, chatgpt starts no session in
		// codecompanion (it waits for a login); the key method does once
		// its key is set.
		{"codex 0.16, no key, no login", "codex-acp", "0.16.0", codexRustMethods, map[string]string{"HOME": t.TempDir()},
			"codex-api-key", []string{"No method starts a session here yet", "no login is stored for chatgpt (",
				"With CODEX_API_KEY set where the editor sees it, codex-api-key (below) answers at once.",
				"chatgpt works instead once `codex login` (the Codex CLI, @openai/codex), run in a terminal, has stored a login: " +
					"codex-acp answers authenticate with it once a ChatGPT login is stored; without one it did not answer within 20 s"}},
		{"codex 0.16, an empty key is no key", "codex-acp", "0.16.0", codexRustMethods, map[string]string{"CODEX_API_KEY": ""},
			"codex-api-key", nil},
		{"codex 0.16, a ChatGPT login stored", "codex-acp", "0.16.0", codexRustMethods, map[string]string{"HOME": homeWith(t, ".codex/auth.json")},
			"chatgpt", []string{"a login is stored here (", ".codex/auth.json), and chatgpt uses it: it answers authenticate at once."}},
		{"codex 0.16, a login in CODEX_HOME", "codex-acp", "0.16.0", codexRustMethods,
			map[string]string{"HOME": t.TempDir(), "CODEX_HOME": filepath.Join(homeWith(t, "codex/auth.json"), "codex")}, "chatgpt", nil},
		{"codex 0.16, CODEX_HOME without a login, ~/.codex with one", "codex-acp", "0.16.0", codexRustMethods,
			map[string]string{"HOME": homeWith(t, ".codex/auth.json"), "CODEX_HOME": t.TempDir()}, "codex-api-key", nil},
		{"codex 0.13, CODEX_API_KEY", "codex-acp", "0.13.0", codexRustMethods, map[string]string{"CODEX_API_KEY": "k"},
			"codex-api-key", nil},
		{"codex 2.6, OPENAI_API_KEY", "@agentclientprotocol/codex-acp", "2.6.0", codexAppServerMethods, map[string]string{"OPENAI_API_KEY": "k"},
			"api-key", nil},
		{"codex 2.6, CODEX_API_KEY", "@agentclientprotocol/codex-acp", "2.6.0", codexAppServerMethods, map[string]string{"CODEX_API_KEY": "k"},
			"api-key", nil},
		{"codex 2.6, no key", "@agentclientprotocol/codex-acp", "2.6.0", codexAppServerMethods, nil,
			"api-key", []string{"With CODEX_API_KEY or OPENAI_API_KEY set where the editor sees it, api-key (below) answers at once.",
				"chat-gpt works instead once `codex login`"}},
		{"codex 2.6, a ChatGPT login stored", "@agentclientprotocol/codex-acp", "2.6.0", codexAppServerMethods,
			map[string]string{"HOME": homeWith(t, ".codex/auth.json")}, "chat-gpt", nil},
		{"gemini, GEMINI_API_KEY", "gemini-cli", "0.61.0", geminiMethods, map[string]string{"GEMINI_API_KEY": "k"},
			"gemini-api-key", nil},
		{"gemini, no key", "gemini-cli", "0.61.0", geminiMethods, nil,
			"gemini-api-key", []string{"writes a login URL on stdout", "With GEMINI_API_KEY set where the editor sees it, gemini-api-key"}},
		{"gemini, a Google login stored", "gemini-cli", "0.61.0", geminiMethods, map[string]string{"HOME": homeWith(t, ".gemini/oauth_creds.json")},
			"oauth-personal", nil},
		{"qwen, OPENAI_API_KEY", "qwen-code", "0.24.4", qwenMethods, map[string]string{"OPENAI_API_KEY": "k"}, "openai", nil},
		{"qwen, no key: its only method", "qwen-code", "0.24.4", qwenMethods, nil,
			"openai", []string{"openai reads OPENAI_API_KEY, which is not set here"}},
		{"pi: a terminal method, its only one", "pi-acp", "0.0.34", piMethods, nil,
			"pi_terminal_login", []string{"pi-acp answers authenticate at once"}},
		{"claude: no method, no authenticate", "@agentclientprotocol/claude-agent-acp", "0.101.0", `[]`, nil, "", nil},
		{"an agent doctor does not know, by the variables it names", "my-agent", "1.0",
			`[{"id":"login","name":"Log in"},{"type":"env_var","id":"key","name":"Key","vars":[{"name":"MY_KEY"}]}]`,
			map[string]string{"MY_KEY": "k"}, "key", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := reportFor(t, codex016, c.agent, "", c.version, c.methods, c.env)
			got := r.signIn()
			assert.Equal(t, c.want, got.Method)
			for _, s := range c.says {
				assert.Contains(t, got.Why, s)
			}
			if c.want != "" {
				assert.Contains(t, advertised(r.Answer), got.Method, "never a method the agent does not advertise")
			}
		})
	}
}

// homeWith is a new home directory holding the file rel.
func homeWith(t *testing.T, rel string) string {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(home, rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, rel), []byte("{}"), 0o600))
	return home
}

func advertised(a *Answer) []string {
	var ids []string
	for _, m := range a.AuthMethods {
		ids = append(ids, m.ID)
	}
	return ids
}

// codecompanionBlock is the setup call in doctor's report, as a Lua file.
func codecompanionBlock(t *testing.T, r *Report) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, r.WriteText(&out))
	text := out.String()
	start := strings.Index(text, "  require(\"codecompanion\").setup({\n")
	require.GreaterOrEqual(t, start, 0, "no setup call in:\n%s", text)
	end := strings.Index(text[start:], "\n  })\n")
	require.GreaterOrEqual(t, end, 0)
	var lua strings.Builder
	for _, line := range strings.SplitAfter(text[start:start+end+len("\n  })\n")], "\n") {
		lua.WriteString(strings.TrimPrefix(line, "  "))
	}
	return lua.String()
}

// Doctor's codecompanion config is one whole setup call that Lua 5.1 (the
// language of Neovim's LuaJIT) runs, and it has the shape codecompanion
// v19.22 reads (docs/editors.md): the adapter under adapters.acp, the
// chat's adapter under interactions.chat, the proxy's command as the
// adapter's default command, and the sign-in method as its auth_method.
func TestCodecompanionSetupRunsInLua(t *testing.T) {
	lua := findTool(t, "lua5.1")
	odd := "/a b/\"q\"/it's\\\x01é"
	cases := []struct {
		name string
		r    *Report
		want []string
	}{
		{"codex 0.16 with CODEX_API_KEY: the preset, extended", reportFor(t, []string{"codex-acp"}, "codex-acp", "Codex", "0.16.0", codexRustMethods, map[string]string{"CODEX_API_KEY": "k"}), []string{
			"chat=codex", "acp.codex=function", "extends=codex",
			"command=/opt/acp-proxy", "command=--shell-to-patch", "command=--terminal-output", "command=--", "command=/bin/codex-acp",
			"auth_method=codex-api-key",
		}},
		{"claude: no method, no auth_method", reportFor(t, []string{"claude-agent-acp"}, "@agentclientprotocol/claude-agent-acp", "Claude Agent", "0.101.0", `[]`, nil), []string{
			"chat=claude_code", "extends=claude_code", "command=/bin/claude-agent-acp", "auth_method=nil",
		}},
		{"qwen: an adapter of its own", reportFor(t, []string{"qwen", "--acp"}, "qwen-code", "Qwen Code", "0.24.4", qwenMethods, map[string]string{"OPENAI_API_KEY": "k"}), []string{
			"chat=qwen_code", "acp.qwen_code=function", "name=qwen_code", "type=acp", "formatted_name=Qwen Code (proxy)",
			"roles=assistant,user", "parameters=1,true,true,CodeCompanion.nvim", "setup=true", "form_messages=formed",
			"on_exit=function", "auth handler=nil", "command=/bin/qwen", "command=--acp", "auth_method=openai",
		}},
		{"an agent named as adapters.acp's own keys", reportFor(t, []string{"x"}, "Extend", "", "1", `[]`, nil), []string{
			"chat=extend_agent", "acp.extend_agent=function", "name=extend_agent",
		}},
		{"odd bytes in a path come back as they were", reportFor(t, []string{odd}, "9 odd/agent!", "", "1", `[]`, nil), []string{
			"chat=odd_agent", "command=/bin/" + filepath.Base(odd), "auth_method=nil",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "init.lua")
			require.NoError(t, os.WriteFile(f, []byte(codecompanionBlock(t, c.r)), 0o644))
			out, err := exec.Command(lua, filepath.Join("testdata", "codecompanion.lua"), f).CombinedOutput()
			require.NoError(t, err, "%s", out)
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			for _, w := range c.want {
				assert.Contains(t, lines, w)
			}
		})
	}
}

// findTool is the program name on PATH; the test skips without it, or
// fails when REQUIRE_EDITORS=1 (CI installs lua5.1 and emacs).
func findTool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("REQUIRE_EDITORS") == "1" {
			t.Fatalf("%s not on PATH (REQUIRE_EDITORS=1)", name)
		}
		t.Skipf("%s not on PATH: the editor configs are checked in it when it is (REQUIRE_EDITORS=1 to require it)", name)
	}
	return path
}

// Doctor's agent-shell config is Emacs Lisp that Emacs reads and runs,
// setting agent-shell's variable to the proxy's command, every argument
// byte for byte.
func TestAgentShellConfigRunsInEmacs(t *testing.T) {
	emacs := findTool(t, "emacs")
	odd := "/a b/\"q\"/it's\\é"
	cases := []struct {
		name     string
		r        *Report
		variable string
		want     []string
	}{
		{"codex 0.16", reportFor(t, []string{"codex-acp"}, "codex-acp", "Codex", "0.16.0", codexRustMethods, nil),
			"agent-shell-openai-codex-acp-command",
			[]string{"/opt/acp-proxy", "--shell-to-patch", "--terminal-output", "--", "/bin/codex-acp"}},
		{"odd bytes in a path, an agent with no variable of its own", reportFor(t, []string{odd, "--acp"}, "my-agent", "", "1", `[]`, nil),
			"",
			[]string{"/opt/acp-proxy", "--shell-to-patch", "--deltas", "--terminal-output", "--", "/bin/" + filepath.Base(odd), "--acp"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, c.r.WriteText(&out))
			_, rest, ok := strings.Cut(out.String(), "agent-shell (Emacs")
			require.True(t, ok)
			form := strings.TrimSpace(strings.Split(rest, "\n")[1])
			variable := c.variable
			if variable == "" {
				variable = "acp-proxy-test-command"
				form = "(setq " + variable + " " + form + ")"
			}
			require.True(t, strings.HasPrefix(form, "(setq "+variable+" '("), form)
			f := filepath.Join(t.TempDir(), "init.el")
			require.NoError(t, os.WriteFile(f, []byte(form+"\n"), 0o644))
			cmd := exec.Command(emacs, "--batch", "-Q", "--load", f, "--eval",
				"(progn (require 'json) (princ (json-encode (vconcat "+variable+"))))")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			require.NoError(t, err, "%s", stderr.String())
			var argv []string
			require.NoError(t, json.Unmarshal(got, &argv), "%s", got)
			assert.Equal(t, c.want, argv)
		})
	}
}
