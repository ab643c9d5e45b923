package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onPath writes executable scripts into a new directory first on PATH.
func onPath(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755))
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// The usual mistakes: an interactive CLI started without its ACP argument
// prints its usage on stdout and waits, or exits; doctor shows what it
// printed and the fix, not only the timeout.
func TestAFailedProbeShowsWhatTheAgentPrintedAndTheFix(t *testing.T) {
	onPath(t, map[string]string{
		"opencode": "#!/bin/sh\necho 'Usage: opencode [command]'\necho '  acp    start an ACP server'\nexec sleep 60\n",
		"gemini":   "#!/bin/sh\nprintf '\\033[1mUsage:\\033[0m gemini [options]\\n'\nexit 1\n",
	})
	cases := []struct {
		argv     []string
		printed  string
		fix      string
		timesOut bool
	}{
		{[]string{"opencode"}, "  | Usage: opencode [command]\n  |   acp    start an ACP server\n",
			"Fix: opencode is an ACP agent only with acp: acp-proxy doctor -- opencode acp\n", true},
		{[]string{"gemini", "-m", "x"}, "  | Usage: gemini [options]\n",
			"Fix: gemini is an ACP agent only with --acp: acp-proxy doctor -- gemini -m x --acp\n", false},
	}
	for _, c := range cases {
		t.Run(c.argv[0], func(t *testing.T) {
			_, err := Probe(context.Background(), c.argv, nil, 2*time.Second)
			require.Error(t, err)
			if c.timesOut {
				assert.Contains(t, err.Error(), "did not answer initialize within")
			}
			var out bytes.Buffer
			WriteFailure(&out, c.argv, err, nil)
			assert.Contains(t, out.String(), "It wrote on stdout, where an editor reads only ACP:\n"+c.printed)
			assert.Contains(t, out.String(), c.fix)
		})
	}
}

// The arguments that make an agent an ACP agent, known for the usual
// CLIs and, for any other registry agent, from the registry.
func TestCommandMistakes(t *testing.T) {
	cases := map[string]string{
		"opencode acp":                              "",
		"gemini --experimental-acp":                 "",
		"npx -y @google/gemini-cli":                 "@google/gemini-cli is an ACP agent only with --acp: acp-proxy doctor -- npx -y @google/gemini-cli --acp",
		"/usr/local/bin/qwen":                       "qwen is an ACP agent only with --acp: acp-proxy doctor -- /usr/local/bin/qwen --acp",
		"qwen -y":                                   "qwen is an ACP agent only with --acp: acp-proxy doctor -- qwen -y --acp",
		"kilo.cmd":                                  "kilo is an ACP agent only with acp: acp-proxy doctor -- kilo.cmd acp",
		"opencode":                                  "opencode is an ACP agent only with acp: acp-proxy doctor -- opencode acp",
		"codex-acp":                                 "",
		"npx opencode-ai@1.18.33 acp":               "",
		"npx -y @qoder-ai/qodercli":                 "@qoder-ai/qodercli is an ACP agent only with --acp: acp-proxy doctor -- npx -y @qoder-ai/qodercli --acp",
		"npx -y @qoder-ai/qodercli --acp":           "",
		"npx -y @xai-official/grok":                 "@xai-official/grok is an ACP agent only with agent stdio: acp-proxy doctor -- npx -y @xai-official/grok agent stdio",
		"uvx fast-agent-acp":                        "fast-agent-acp is an ACP agent only with -x: acp-proxy doctor -- uvx fast-agent-acp -x",
		"/opt/vtcode/vtcode":                        "vtcode is an ACP agent only with acp: acp-proxy doctor -- /opt/vtcode/vtcode acp",
		"npx -y pi-acp":                             "",
		"npx @agentclientprotocol/claude-agent-acp": "",
	}
	for line, want := range cases {
		assert.Equal(t, want, CommandMistake(splitWords(line)), line)
	}
}

func splitWords(s string) []string { return bytes2strings(bytes.Fields([]byte(s))) }

func bytes2strings(b [][]byte) []string {
	out := make([]string, len(b))
	for i := range b {
		out[i] = string(b[i])
	}
	return out
}

// An npm agent as npm installs it: a link in node_modules/.bin to a
// #!/usr/bin/env node script in its package, whose package.json says which
// Node it needs.
func TestANodeScriptAgentIsToldAboutPATHAndItsNode(t *testing.T) {
	bin := onPath(t, map[string]string{"node": "#!/bin/sh\necho v20.1.0\n"})
	pkg := filepath.Join(t.TempDir(), "node_modules", "@scope", "agent")
	require.NoError(t, os.MkdirAll(filepath.Join(pkg, "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.json"),
		[]byte(`{"name":"@scope/agent","version":"0.101.0","engines":{"node":">=22"}}`), 0o644))
	script := filepath.Join(pkg, "dist", "index.js")
	require.NoError(t, os.WriteFile(script, []byte("#!/usr/bin/env node\n"), 0o755))
	link := filepath.Join(t.TempDir(), "agent")
	require.NoError(t, os.Symlink(script, link))

	n := FindScript(link)
	require.NotNil(t, n)
	realScript, err := filepath.EvalSymlinks(script)
	require.NoError(t, err)
	assert.Equal(t, Script{Script: realScript, Interpreter: "node", Args: []string{}, ViaEnv: true,
		Path: filepath.Join(bin, "node"), Version: "v20.1.0",
		Package: "@scope/agent", PackageVersion: "0.101.0", Engines: ">=22"}, *n)
	assert.Contains(t, n.EnginesProblem(), "@scope/agent 0.101.0 needs Node >=22 (engines.node in its package.json), but node on PATH is v20.1.0")
	assert.Equal(t, []string{filepath.Join(bin, "node"), realScript, "--acp"}, n.Command([]string{"agent", "--acp"}))
	assert.Contains(t, n.Notes()[0], "node is on the editor's PATH too")

	n.Engines = ">=18"
	assert.Empty(t, n.EnginesProblem(), "a Node that satisfies engines.node is not a problem")

	sh := filepath.Join(bin, "sh-agent")
	require.NoError(t, os.WriteFile(sh, []byte("#!/bin/sh\n"), 0o755))
	assert.Nil(t, FindScript(sh), "a script its #! line runs by path needs no PATH")
}

// Any interpreter a #! line runs through env is found on PATH, or said not
// to be: python3, bun through env -S, an interpreter that is not installed.
func TestAScriptRunThroughEnvIsToldAboutItsInterpreter(t *testing.T) {
	bin := onPath(t, map[string]string{"python3": "#!/bin/sh\n", "bun": "#!/bin/sh\n"})
	dir := t.TempDir()
	cases := []struct {
		shebang, interpreter string
		args                 []string
		found                bool
	}{
		{"#!/usr/bin/env python3", "python3", []string{}, true},
		{"#!/usr/bin/env -S bun run", "bun", []string{"run"}, true},
		{"#!/usr/bin/env -S NODE_OPTIONS=--x python3 -u", "python3", []string{"-u"}, true},
		{"#!/usr/bin/env acp-proxy-no-such-interpreter", "acp-proxy-no-such-interpreter", []string{}, false},
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprint("agent", i))
		require.NoError(t, os.WriteFile(path, []byte(c.shebang+"\nprint('hi')\n"), 0o755))
		s := FindScript(path)
		require.NotNil(t, s, c.shebang)
		assert.Equal(t, c.interpreter, s.Interpreter, c.shebang)
		assert.Equal(t, c.args, s.Args, c.shebang)
		assert.Contains(t, s.Notes()[0], "the agent is a "+c.interpreter+" script", c.shebang)
		if !c.found {
			assert.Nil(t, s.Command([]string{"agent"}), c.shebang)
			assert.Contains(t, s.NotFound(), "its #! line runs "+c.interpreter+" through env, and "+c.interpreter+" is not on this shell's PATH")
			var out bytes.Buffer
			WriteFailure(&out, []string{path}, errors.New("exited"), s)
			assert.Contains(t, out.String(), "Fix: its #! line runs "+c.interpreter+" through env")
			continue
		}
		assert.Empty(t, s.NotFound(), c.shebang)
		assert.Equal(t, append(append([]string{filepath.Join(bin, c.interpreter)}, c.args...), path, "--acp"),
			s.Command([]string{"agent", "--acp"}), c.shebang)
	}
}

func TestSatisfies(t *testing.T) {
	cases := []struct {
		version, spec string
		ok, known     bool
	}{
		{"v20.11.1", ">=18", true, true},
		{"v20.11.1", ">=22", false, true},
		{"v22.0.0", ">=22.0.0", true, true},
		{"v18.19.0", "^18.18.0 || >=20", true, true},
		{"v19.0.0", "^18.18.0 || >=20", false, true},
		{"v20.1.0", ">= 18.0.0 < 21", true, true},
		{"v21.0.0", ">=18.0.0 <21", false, true},
		{"v20.5.0", "20.x", true, true},
		{"v21.5.0", "20", false, true},
		{"v20.5.0", "~20.4", false, true},
		{"v20.4.9", "~20.4", true, true},
		{"v16.0.0", "*", true, true},
		{"v20.0.0", "18 - 20", true, true},
		{"v20.0.0", ">20", false, true},
		{"v20.0.0", "node lts", false, false},
	}
	for _, c := range cases {
		ok, known := satisfies(c.version, c.spec)
		assert.Equal(t, [2]bool{c.ok, c.known}, [2]bool{ok, known}, "%s in %q", c.version, c.spec)
	}
}
