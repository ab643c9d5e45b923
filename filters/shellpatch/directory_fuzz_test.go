package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/stretchr/testify/require"
)

// fuzzReleases are the claude releases FuzzClaudeShellDirectory plays, each with what its shell
// does at each boundary (carryResets or carryKeeps); a boundary it lacks is unproven, and the
// fuzzer picks what the shell does there, which the filter must never guess.
var fuzzReleases = []struct {
	name, version string
	proven        map[string]shellCarry
}{
	{"@zed-industries/claude-agent-acp", "0.23.1", map[string]shellCarry{"session/prompt": carryResets, "session/load": carryResets, "session/resume": carryResets}},
	{"@agentclientprotocol/claude-agent-acp", "0.101.0", map[string]shellCarry{"session/prompt": carryKeeps, "session/load": carryKeeps, "session/resume": carryKeeps}},
	{"@agentclientprotocol/claude-agent-acp", "0.102.0", nil},
}

// fuzzShellScripts are the commands of FuzzClaudeShellDirectory: a cd the filter follows (which
// fails where there is no sub below), a write where the shell is, an absolute cd back, and a
// command the filter does not follow.
var fuzzShellScripts = []string{"cd sub && echo a > x", "echo b > notes.md", "cd @ROOT@ && echo r > r.txt", "ls"}

// FuzzClaudeShellDirectory drives random sequences of claude Bash calls, prompt turns, loads and
// resumes over two sessions against a model of where each session's shell really is, and checks
// that every diff the client is shown names the file the command really writes there.
func FuzzClaudeShellDirectory(f *testing.F) {
	f.Add(uint8(0), []byte{0, 4, 1})
	f.Add(uint8(1), []byte{0, 4, 1, 5, 1})
	f.Add(uint8(2), []byte{0, 6, 1, 3, 4, 1, 8, 0, 1})
	f.Fuzz(func(t *testing.T, release uint8, ops []byte) {
		if len(ops) > 30 {
			ops = ops[:30]
		}
		r := fuzzReleases[int(release)%len(fuzzReleases)]
		c, root := claudeFuzzChain(t, r.name, r.version)
		shell := map[string]string{"S": root, "T": root} // the model: where each shell is
		sid, n := "S", 0
		for _, op := range ops {
			switch kind := op % 9; {
			case kind < 4:
				n++
				runModelled(t, c, sid, fmt.Sprintf("toolu_%d", n), kind, root, shell)
			case kind < 7:
				method := []string{"session/prompt", "session/load", "session/resume"}[kind-4]
				carry, ok := r.proven[method]
				if !ok { // unproven: the fuzzer says what the shell does
					carry = carryKeeps
					if op/9%2 == 1 {
						carry = carryResets
					}
				}
				if carry == carryResets {
					shell[sid] = root
				}
				boundaryOf(t, c, method, sid, root, n)
			default:
				sid = map[string]string{"S": "T", "T": "S"}[sid]
			}
		}
	})
}

// runModelled sends claude's messages for script kind in session sid, runs it in the model (the
// files it writes, where its shell ends up) and checks the diffs the client is shown.
func runModelled(t *testing.T, c *filters.Chain, sid, id string, kind byte, root string, shell map[string]string) {
	script := fuzzShellScripts[kind]
	if kind == 2 {
		script = "cd " + root + " && echo r > r.txt"
	}
	dir, status := shell[sid], "completed"
	var wrote, content string
	switch kind {
	case 0:
		if _, err := os.Stat(filepath.Join(dir, "sub")); err != nil {
			status = "failed"
			break
		}
		dir = filepath.Join(dir, "sub")
		wrote, content = filepath.Join(dir, "x"), "a\n"
	case 1:
		wrote, content = filepath.Join(dir, "notes.md"), "b\n"
	case 2:
		dir = root
		wrote, content = filepath.Join(root, "r.txt"), "r\n"
	}
	for _, msg := range claudeBash(id, script) {
		for _, out := range chaintest.Run(t, c, acp.AgentToClient, onSession(msg, sid)) {
			checkDiffNames(t, out.Raw, wrote, script, shell[sid])
		}
	}
	if wrote != "" {
		require.NoError(t, os.WriteFile(wrote, []byte(content), 0o644))
	}
	shell[sid] = dir
	chaintest.Run(t, c, acp.AgentToClient, onSession(claudeDone(id, status), sid))
}

// checkDiffNames fails when raw shows a diff of another file than the one the command writes.
func checkDiffNames(t *testing.T, raw, wrote, script, shellDir string) {
	t.Helper()
	if !strings.Contains(raw, `"type":"diff"`) {
		return
	}
	require.Equal(t, wrote, diffPath(t, raw, "params", "update", "content"), "%q run in %s: the file shown", script, shellDir)
}

func onSession(msg, sid string) string {
	if sid == "S" {
		return msg
	}
	return string(replaceSession(msg, sid))
}

// boundaryOf is boundary for session sid with a fresh request id.
func boundaryOf(t *testing.T, c *filters.Chain, method, sid, dir string, n int) {
	t.Helper()
	params := fmt.Sprintf(`{"sessionId":%q,"cwd":%q,"mcpServers":[]}`, sid, dir)
	result := `{}`
	if method == "session/prompt" {
		params, result = fmt.Sprintf(`{"sessionId":%q,"prompt":[]}`, sid), `{"stopReason":"end_turn"}`
	}
	id := fmt.Sprintf(`"b%d"`, n)
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
	chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
}

// claudeFuzzChain is a chain with shell-to-patch for the claude release name/version, with sessions
// S and T in a fresh directory holding sub/ and sub/sub/.
func claudeFuzzChain(t *testing.T, name, version string) (*filters.Chain, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "sub", "sub"), 0o755))
	c := filters.NewChain(capabilities.New(), &Filter{})
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":1,"agentInfo":{"name":%q,"version":%q}}}`, name, version))
	for i, sid := range []string{"S", "T"} {
		chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, i+1, root))
		chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"sessionId":%q}}`, i+1, sid))
	}
	return c, root
}
