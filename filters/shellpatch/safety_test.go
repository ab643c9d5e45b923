package shellpatch

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// The classes of the safety review: each test shows a case where the edit shown was not what ran.

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// claudeBash is claude-agent-acp's sequence for a Bash call: the tool_call without a command, then
// the update with it.
func claudeBash(id, script string) []string {
	return []string{
		patchUpdate(fmt.Sprintf(`{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":%q,"sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[]}`, id)),
		patchUpdate(fmt.Sprintf(`{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":%q,"sessionUpdate":"tool_call_update","rawInput":{"command":%s,"description":"d"},"title":"t"}`, id, jsonString(script))),
	}
}

// claudeDone is the final update of a claude Bash call.
func claudeDone(id, status string) string {
	return patchUpdate(fmt.Sprintf(`{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":%q,"sessionUpdate":"tool_call_update","status":%q}`, id, status))
}

// claudePermission is claude-agent-acp 0.23's permission request: no _meta.
func claudePermission(id, script string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"options":[{"kind":"allow_once","name":"Allow","optionId":"allow"}],"sessionId":"S","toolCall":{"toolCallId":%q,"rawInput":{"command":%s,"description":"d"},"title":"t","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"d"}}]}}}`, id, jsonString(script))
}

func diffPath(t *testing.T, raw string, path ...string) string {
	t.Helper()
	var content []struct{ Type, Path string }
	require.NoError(t, json.Unmarshal([]byte(field(t, raw, path...)), &content))
	require.NotEmpty(t, content)
	require.Equal(t, "diff", content[0].Type, raw)
	return content[0].Path
}

// Class 1: a call is known by (session, id), and every rawInput is judged by itself.
func TestALaterCommandOfTheSameCallIsNotShownAsTheEarlierEdit(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	first := chaintest.Run(t, c, acp.AgentToClient, codexCall("call_0", "echo hi > f", dir))
	require.False(t, first[0].Original)

	argv, _ := json.Marshal([]string{"bash", "-lc", "rm -rf ~ ; echo hi > f"})
	for _, msg := range []string{
		patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"call_0","status":"in_progress","rawInput":{"command":%s,"cwd":%q},"content":[]}`, argv, dir)),
		fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"call_0","kind":"execute","rawInput":{"command":%s,"cwd":%q},"content":[]},"options":[]}}`, argv, dir),
		patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_0","status":"completed","content":[]}`),
	} {
		got := chaintest.Run(t, c, acp.AgentToClient, msg)
		assert.NotContains(t, got[0].Raw, `"diff"`, "shown as the earlier edit")
		assert.NotContains(t, got[0].Raw, `"edit"`, "shown as the earlier edit")
	}
}

// When a call's command changes after its edit was shown, the next update takes the edit back:
// the client would keep showing it, as an update replaces only what it carries.
func TestAnEditShownForAnotherCommandIsTakenBack(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("call_0", "echo hi > f", dir))[0].Original)
	argv, _ := json.Marshal([]string{"bash", "-lc", "curl x | sh"})
	perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"call_0","kind":"execute","title":"curl x | sh","rawInput":{"command":%s,"cwd":%q},"content":[]},"options":[]}}`, argv, dir)
	assert.True(t, chaintest.Run(t, c, acp.AgentToClient, perm)[0].Original, "the request shows the agent's own call")
	got := chaintest.Run(t, c, acp.AgentToClient, patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_0","status":"completed"}`))
	assert.JSONEq(t, `{"sessionUpdate":"tool_call_update","toolCallId":"call_0","status":"completed","kind":"execute","locations":[],"content":[],"title":"curl x | sh"}`,
		field(t, got[0].Raw, "params", "update"))
}

// A permission request whose command became another write shows that write, and so does the
// call's next update, whatever members it carries.
func TestAnEditReplacedInThePermissionRequestIsRestated(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "echo original > o.txt")...)
	got := chaintest.Run(t, c, acp.AgentToClient, claudePermission("toolu_1", "echo hooked > h.txt"))
	assert.Equal(t, filepath.Join(dir, "h.txt"), diffPath(t, got[0].Raw, "params", "toolCall", "content"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h.txt"), []byte("hooked\n"), 0o644)) // it ran
	got = chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
	assert.Equal(t, filepath.Join(dir, "h.txt"), diffPath(t, got[0].Raw, "params", "update", "content"))
	assert.Equal(t, `"echo hooked > h.txt"`, field(t, got[0].Raw, "params", "update", "title"), "the command that runs, not the earlier one")
}

// claude's permission request carries the input after PreToolUse hooks, which may rewrite it.
func TestAPermissionRequestIsJudgedByItsOwnCommand(t *testing.T) {
	c, _ := shellPatchSession(t, &Filter{})
	got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "echo hi > f")...)
	require.False(t, got[1].Original)
	got = chaintest.Run(t, c, acp.AgentToClient, claudePermission("toolu_1", "curl x | sh"))
	assert.True(t, got[0].Original, "the hook's command is not the recognised write")

	// A hook may also rewrite one write into another: the request shows the one that will run.
	c, _ = shellPatchSession(t, &Filter{})
	got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo hi > f")...)
	require.False(t, got[1].Original)
	got = chaintest.Run(t, c, acp.AgentToClient, claudePermission("toolu_2", "echo bye > g"))
	assert.Contains(t, field(t, got[0].Raw, "params", "toolCall", "content"), `"newText":"bye\n"`)
}

func TestCallIDsOfAnotherSessionAreAnotherCall(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"T"}}`)
	require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("call_0", "echo hi > f", dir))[0].Original)

	other := strings.Replace(codexCall("call_0", "curl x | sh", dir), `"sessionId":"S"`, `"sessionId":"T"`, 1)
	assert.True(t, chaintest.Run(t, c, acp.AgentToClient, other)[0].Original)
	update := strings.Replace(patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_0","status":"in_progress","content":[{"type":"terminal","terminalId":"call_0"}]}`), `"sessionId":"S"`, `"sessionId":"T"`, 1)
	assert.True(t, chaintest.Run(t, c, acp.AgentToClient, update)[0].Original, "session T's call_0 is not session S's edit")
}

// Class 2: Claude Code's shell keeps its directory between Bash calls.
func TestClaudeShellDirectoryIsFollowedOrNotGuessed(t *testing.T) {
	t.Run("after a command the filter cannot follow, relative paths stand aside", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
		chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "cd sub && ls")...)
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "cat > notes.md <<'EOF'\nhi\nEOF")...)
		assert.True(t, got[1].Original, "the shell may be in sub/: %s", got[1].Raw)
		// An absolute target does not depend on it.
		got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_3", "echo hi > "+dir+"/abs.md")...)
		assert.Equal(t, filepath.Join(dir, "abs.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
	t.Run("a recognised cd that completed moves the shell", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "cd sub && echo a > x")...)
		assert.Equal(t, filepath.Join(dir, "sub", "x"), diffPath(t, got[1].Raw, "params", "update", "content"))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "x"), []byte("a\n"), 0o644)) // what the shell writes
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
		got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
		assert.Equal(t, filepath.Join(dir, "sub", "notes.md"), diffPath(t, got[1].Raw, "params", "update", "content"))
		assert.Equal(t, `"echo b > notes.md"`, field(t, got[1].Raw, "params", "update", "title"))
	})
	t.Run("a failed cd leaves the shell unknown", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
		chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "cd sub && echo a > x")...)
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "failed"))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > notes.md")...)
		assert.True(t, got[1].Original)
	})
	t.Run("a write without cd keeps the shell where it was", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "echo a > x")...)
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > y")...)
		assert.Equal(t, filepath.Join(dir, "y"), diffPath(t, got[1].Raw, "params", "update", "content"))
		// So does a write claude transforms (not shown): it still has no cd.
		chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_3", "echo 'a!b' > z")...)
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_3", "completed"))
		got = chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_4", "echo b > w")...)
		assert.Equal(t, filepath.Join(dir, "w"), diffPath(t, got[1].Raw, "params", "update", "content"))
	})
	t.Run("a cd outside the session's directory leaves the shell unknown", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{OutsideCwd: true})
		chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "cd / && echo a > "+dir+"/x")...)
		chaintest.Run(t, c, acp.AgentToClient, claudeDone("toolu_1", "completed"))
		got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_2", "echo b > y")...)
		assert.True(t, got[1].Original, "Claude Code moves a shell that left the project back")
	})
}

// Class 3: Claude Code transforms some commands before its shell runs them.
func TestClaudeTransformedCommandsStandAside(t *testing.T) {
	for _, tc := range []struct {
		script string
		shown  bool
	}{
		{`echo 'a!b' > e.txt`, false},              // eval gets "echo 'a\!b' > e.txt": the file holds a\!b
		{`printf '%s\n' 'wow!' > e.txt`, false},    //
		{`echo "a!b" 'c' > e.txt`, false},          // a ' anywhere puts the whole text in double quotes
		{`echo hi > nul`, false},                   // >nul becomes >/dev/null
		{"cat <<'EOF' > e.txt\n2>nul\nEOF", false}, // even in a here-document
		{`echo 'a|b' > e.txt`, true},               // no | operator: single-quoted whole, exact
		{`echo "a > b && c | d" > gt.txt`, true},   // the same, in double quotes
		{`echo hi >| e.txt`, false},                // shell-quote reads >| as > and |: re-tokenised
		{`echo "a!b" > e.txt`, true},               // no ': single-quoted whole, exact
		{"cat <<'EOF' > e.txt\nit's done!\nEOF", true},
		{"cat <<'EOF' > e.txt\n1 << 2 !\nEOF", false},  // looks like a shift: quoted as a one-line command, ! escaped
		{"cat <<'EOF' > e.txt\n1 << 2 ! '\nEOF", true}, // a quote spanning lines: single-quoted whole
		{`echo nullable > e.txt`, true},
	} {
		t.Run(tc.script, func(t *testing.T) {
			c, _ := shellPatchSession(t, &Filter{})
			got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", tc.script)...)
			assert.Equal(t, tc.shown, !got[1].Original, got[1].Raw)
		})
	}
}

// Only claude's Bash tool runs shell commands; another tool's "command" is not one.
func TestOtherClaudeToolsAreNotShellCommands(t *testing.T) {
	c, _ := shellPatchSession(t, &Filter{})
	got := chaintest.Run(t, c, acp.AgentToClient,
		patchUpdate(`{"_meta":{"claudeCode":{"toolName":"mcp__runner__run"}},"toolCallId":"toolu_9","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"run","kind":"execute","content":[]}`),
		patchUpdate(`{"_meta":{"claudeCode":{"toolName":"mcp__runner__run"}},"toolCallId":"toolu_9","sessionUpdate":"tool_call_update","rawInput":{"command":"echo hi > f","description":"d"}}`),
		claudePermission("toolu_9", "echo hi > f"))
	for _, g := range got {
		assert.True(t, g.Original, g.Raw)
	}
}

// Class 4: codex's permission content says what an approval grants.
func TestPermissionContentOfTheAgentStays(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	argv, _ := json.Marshal([]string{"/bin/bash", "-lc", "echo hi > f"})
	text := "Proposed Amendment: /bin/bash -lc echo hi > f\nAdditional Permissions: network access"
	perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"c1","kind":"execute","status":"pending","title":"echo","content":[{"type":"content","content":{"type":"text","text":%s}},{"type":"terminal","terminalId":"c1"}],"rawInput":{"command":%s,"cwd":%q}},"options":[{"optionId":"approved-execpolicy-amendment","name":"Yes, and remember this command pattern","kind":"allow_always"}]}}`, jsonString(text), argv, dir)
	got := chaintest.Run(t, c, acp.AgentToClient, perm)
	assert.JSONEq(t, fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":null,"newText":"hi\n"},{"type":"content","content":{"type":"text","text":%s}}]`, filepath.Join(dir, "f"), jsonString(text)),
		field(t, got[0].Raw, "params", "toolCall", "content"))
}

// Class 5: shapes are recognised positively, with their directory key.
func TestBareCommandShapesHonourTheirDirectory(t *testing.T) {
	for _, tc := range []struct {
		name, agent, shell, rawInput string
		want                         string // relative to the session directory; "" stands aside
	}{
		{"opencode workdir", "OpenCode", "/bin/bash", `{"command":"echo hi > f","description":"d","workdir":"sub"}`, "sub/f"},
		{"opencode cwd", "OpenCode", "/usr/bin/zsh", `{"command":"echo hi > f","description":"d","cwd":"@DIR@/sub"}`, "sub/f"},
		{"opencode without a directory: the session's", "OpenCode", "", `{"command":"echo hi > f","description":"d"}`, "f"},
		{"opencode in fish", "OpenCode", "/usr/bin/fish", `{"command":"echo hi > f","description":"d"}`, ""},
		{"gemini dir_path", "gemini-cli", "/usr/bin/fish", `{"command":"echo hi > f","description":"d","dir_path":"sub"}`, "sub/f"},
		{"gemini directory (older releases)", "gemini-cli", "", `{"command":"echo hi > f","directory":"sub"}`, "sub/f"},
		{"gemini with a sandbox escalation", "gemini-cli", "", `{"command":"echo hi > f","additional_permissions":{"network":true}}`, ""},
		{"an unknown key", "OpenCode", "", `{"command":"echo hi > f","description":"d","dir":"sub"}`, ""},
		{"two directory keys", "OpenCode", "", `{"command":"echo hi > f","workdir":"sub","cwd":"@DIR@"}`, ""},
		{"an agent the filter does not know", "some-agent", "", `{"command":"echo hi > f","description":"d"}`, ""},
		{"claude's shape with a directory key", "@zed-industries/claude-agent-acp", "", `{"command":"echo hi > f","description":"d","workdir":"sub"}`, ""},
		// Second review, class 1: a `bash -c '…'` line from a bare agent is that agent's bare
		// script (a command that writes no file), never codex's command line: the directory
		// key, the $SHELL check and the unknown keys still decide.
		{"opencode's workdir with a bash -c line", "OpenCode", "/bin/bash", `{"command":"bash -c 'echo hi > f'","description":"d","workdir":"sub"}`, ""},
		{"opencode in fish with a bash -c line", "OpenCode", "/usr/bin/fish", `{"command":"bash -c 'echo hi > f'","description":"d"}`, ""},
		{"gemini's dir_path with a bash -c line", "gemini-cli", "", `{"command":"bash -c 'echo hi > f'","dir_path":"sub"}`, ""},
		{"gemini's directory with a bash -c line", "gemini-cli", "", `{"command":"bash -c 'echo hi > f'","directory":"sub"}`, ""},
		{"an unknown agent's extra key with a bash -c line", "some-agent", "", `{"command":"bash -c 'echo hi > f'","cwd":"@DIR@","sandbox":"x"}`, ""},
		{"an unknown agent's codex command line", "some-agent", "", `{"command":"bash -c 'echo hi > f'","cwd":"@DIR@/sub"}`, "sub/f"},
		// codex-acp (TypeScript) 2.x: exec_command's bare script and its cwd; codex runs bash, zsh
		// or sh whatever $SHELL says. 1.x's `bash -lc SCRIPT` line still reads as SCRIPT.
		{"codex 2.x bare script", "@agentclientprotocol/codex-acp", "/usr/bin/fish", `{"command":"echo hi > f","cwd":"@DIR@/sub"}`, "sub/f"},
		{"codex 2.x without a cwd: the session's", "@agentclientprotocol/codex-acp", "", `{"command":"echo hi > f"}`, "f"},
		{"codex 1.x command line", "@agentclientprotocol/codex-acp", "", `{"command":"/bin/zsh -lc 'echo hi > f'","cwd":"@DIR@/sub"}`, "sub/f"},
		{"codex 2.x with an unknown key", "@agentclientprotocol/codex-acp", "", `{"command":"echo hi > f","cwd":"@DIR@","sandbox_permissions":"require_escalated"}`, ""},
		{"kilo cwd, its heredoc fact", "Kilo", "/bin/bash", `{"command":"echo hi > f","description":"d","cwd":"@DIR@/sub","heredoc":true}`, "sub/f"},
		{"kilo in fish", "Kilo", "/usr/bin/fish", `{"command":"echo hi > f","description":"d"}`, ""},
		{"codex 2.x with a relative cwd", "@agentclientprotocol/codex-acp", "", `{"command":"echo hi > f","cwd":"sub"}`, "sub/f"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SHELL", tc.shell)
			c, dir := namedAgentSession(t, tc.agent)
			meta := ""
			if strings.HasPrefix(tc.name, "claude") {
				meta = `"_meta":{"claudeCode":{"toolName":"Bash"}},`
			}
			msg := patchUpdate(fmt.Sprintf(`{%s"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","status":"pending","title":"bash","rawInput":%s}`,
				meta, strings.ReplaceAll(tc.rawInput, "@DIR@", dir)))
			got := chaintest.Run(t, c, acp.AgentToClient, msg)
			if tc.want == "" {
				assert.True(t, got[0].Original, got[0].Raw)
				return
			}
			assert.Equal(t, filepath.Join(dir, tc.want), diffPath(t, got[0].Raw, "params", "update", "content"))
		})
	}
}

// Second review, class 4: codex hands its cwd to the kernel as it is, which resolves a '..'
// after a symlink physically: ROOT/link/.. with link → ROOT/a/b is ROOT/a.
func TestCodexCwdIsResolvedAsTheKernelDoes(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "link")))
	got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "echo hi > f", dir+"/link/.."))
	assert.Equal(t, filepath.Join(dir, "a", "f"), diffPath(t, got[0].Raw, "params", "update", "content"))
	line := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","title":"x","rawInput":{"command":"bash -lc 'echo hi > g'","cwd":%q}}`, dir+"/link/.."))
	got = chaintest.Run(t, c, acp.AgentToClient, line)
	assert.Equal(t, filepath.Join(dir, "a", "g"), diffPath(t, got[0].Raw, "params", "update", "content"), "codex TypeScript's command line")
	// A shell started there, as codex starts it, really writes there.
	sh := exec.Command("bash", "-c", "echo hi > f")
	sh.Dir = dir + "/link/.."
	require.NoError(t, sh.Run())
	assert.FileExists(t, filepath.Join(dir, "a", "f"))
	assert.NoFileExists(t, filepath.Join(dir, "f"))
}

// codex-acp (TypeScript) 2.x asks permission after the tool_call, and its request names the
// script through its own unwrapping of `SHELL -lc 'SCRIPT'`: bare when the script holds no
// quote, else still quoted as one shell word (measured with 2.6.0). The request shows the edit
// when it names the call's script in either form, in the call's directory, and stands aside
// (taking back what the call showed) otherwise.
func TestCodex2PermissionNamesTheScriptBareOrQuoted(t *testing.T) {
	const script = "cat > f <<'EOF'\nit's $HOME\nEOF"
	call := func(dir string) string {
		return patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"call_1","kind":"execute","title":%s,"status":"in_progress","content":[{"type":"terminal","terminalId":"call_1"}],"rawInput":{"command":%s,"cwd":%q},"_meta":{"terminal_info":{"cwd":%q,"terminal_id":"call_1"}}}`,
			jsonString(script), jsonString(script), dir, dir))
	}
	for _, tc := range []struct {
		name      string
		requested string // the request's rawInput.command
		cwd       string // the request's cwd, relative to the session directory
		shown     bool
	}{
		{"bare", script, ".", true},
		{"quoted as one word", `"cat > f <<'EOF'` + "\n" + `it's "'$HOME` + "\n" + `EOF'`, ".", true},
		{"quoted, another script", `'cat > g <<EOF'`, ".", false},
		{"two words", `cat "> f"`, ".", false},
		{"with its shell", `/usr/bin/fish -lc 'x'`, ".", false},
		{"another directory", script, "sub", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := namedAgentSession(t, "@agentclientprotocol/codex-acp")
			got := chaintest.Run(t, c, acp.AgentToClient, call(dir))
			require.Equal(t, filepath.Join(dir, "f"), diffPath(t, got[0].Raw, "params", "update", "content"), "the tool_call shows the write")
			perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"call_1","title":%s,"rawInput":{"command":%s,"cwd":%q},"kind":"execute","status":"pending"},"options":[{"optionId":"allow_once","name":"Yes, proceed","kind":"allow_once"},{"optionId":"cancel","name":"No","kind":"reject_once"}]}}`,
				jsonString(script), jsonString(tc.requested), filepath.Join(dir, tc.cwd))
			got = chaintest.Run(t, c, acp.AgentToClient, perm)
			if !tc.shown {
				assert.NotContains(t, got[len(got)-1].Raw, `"type":"diff"`, "a request for another command shows no edit")
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, filepath.Join(dir, "f"), diffPath(t, got[0].Raw, "params", "toolCall", "content"))
			assert.Equal(t, field(t, perm, "params", "options"), field(t, got[0].Raw, "params", "options"), "the options pass untouched")
			assert.Equal(t, field(t, perm, "params", "toolCall", "rawInput"), field(t, got[0].Raw, "params", "toolCall", "rawInput"), "the command that runs stays visible")
		})
	}
}

// namedAgentSession is a session whose agent gave name in initialize, with a directory "sub".
func namedAgentSession(t *testing.T, name string) (*filters.Chain, string) {
	t.Helper()
	c, dir := shellPatchSession(t, &Filter{})
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	chaintest.Run(t, c, acp.AgentToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":1,"agentInfo":{"name":%q,"version":"1"}}}`, name))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	return c, dir
}

// opencode 1.18 with "permission": {"bash": "ask"}: the update that names the command (with its
// workdir, or cwd) comes before the permission request, whose rawInput is only {command}. The
// command runs where the update said, so that is the file the request shows; without an update
// naming the same script, where it runs is unknown.
func TestOpencodePermissionRunsWhereTheUpdateSaid(t *testing.T) {
	const script = "echo hi > f"
	update := func(dirKey string) string {
		return patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"in_progress","kind":"execute","title":%q,"locations":[],"rawInput":{"command":%q,"description":"d",%s},"content":[]}`, script, script, dirKey))
	}
	permission := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"call_1","title":%q,"kind":"execute","status":"pending","locations":[],"rawInput":{"command":%q}},"options":[{"optionId":"once","kind":"allow_once","name":"Allow once"}]}}`, script, script)
	completed := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","title":%q,"content":[{"type":"content","content":{"type":"text","text":"(no output)"}}]}`, script))
	for _, tc := range []struct {
		name   string
		before []string // the call's messages before the permission request; @DIR@ is the session's
		want   string   // the file shown, relative to the session directory; "" stands aside
	}{
		{"workdir", []string{update(`"workdir":"sub"`)}, "sub/f"},
		{"cwd", []string{update(`"cwd":"@DIR@"`)}, "f"},
		{"no update names the command", nil, ""},
		{"the update names another command", []string{strings.ReplaceAll(update(`"workdir":"sub"`), `"echo hi > f"`, `"echo hi > g"`)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := namedAgentSession(t, "OpenCode")
			call := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"bash","kind":"execute","status":"pending","locations":[{"path":%q}],"rawInput":{"cwd":%q}}`, dir, dir))
			msgs := []string{call}
			for _, m := range tc.before {
				msgs = append(msgs, strings.ReplaceAll(m, "@DIR@", dir))
			}
			for _, got := range chaintest.Run(t, c, acp.AgentToClient, msgs...) {
				require.True(t, got.Original, "before the request the command may be running: %s", got.Raw)
			}
			got := chaintest.Run(t, c, acp.AgentToClient, permission)
			if tc.want == "" {
				assert.True(t, got[0].Original, got[0].Raw)
				return
			}
			assert.Equal(t, filepath.Join(dir, tc.want), diffPath(t, got[0].Raw, "params", "toolCall", "content"))
			// The updates after the request, which report the directory again, keep the edit.
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.want), []byte("hi\n"), 0o644)) // it ran
			after := chaintest.Run(t, c, acp.AgentToClient, strings.ReplaceAll(tc.before[len(tc.before)-1], "@DIR@", dir), completed)
			for _, g := range after {
				assert.Equal(t, filepath.Join(dir, tc.want), diffPath(t, g.Raw, "params", "update", "content"))
			}
		})
	}
}

// Class 7 (the filter's side): a write that cannot happen is not shown.
func TestWritesThatCannotHappenStandAside(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644))
	for _, script := range []string{
		"cd nosuch && echo hi > " + dir + "/f",
		"cd afile && echo hi > " + dir + "/f",
		"cd +0 && echo hi > f",
		"echo " + strings.Repeat("x", 128<<10) + " > f",
	} {
		got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c", script, dir))
		assert.True(t, got[0].Original, "shown: %.200s", script)
	}
}

// With $CDPATH set (the agent shares the proxy's environment), `cd sub` may go elsewhere.
func TestCDPATHMakesARelativeCdUnknown(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	t.Setenv("CDPATH", t.TempDir())
	assert.True(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("a", "cd sub && echo hi > f", dir))[0].Original)
	assert.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("b", "cd ./sub && echo hi > f", dir))[0].Original)
}

// Class 8: a title cannot be spoofed, and history replayed by session/load is not diffed against
// today's file.
func TestHardening(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c", "echo hi > \u202etxt.exe", dir))
	assert.True(t, got[0].Original, "a bidi control in the path")

	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"method":"session/load","params":{"sessionId":"S","cwd":%q,"mcpServers":[]}}`, dir))
	got = chaintest.Run(t, c, acp.AgentToClient, codexCall("old", "echo hi > f", dir))
	assert.True(t, got[0].Original, "a replayed call")
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":9,"result":{}}`)
	got = chaintest.Run(t, c, acp.AgentToClient, codexCall("new", "echo hi > f", dir))
	assert.False(t, got[0].Original, "after the load, calls are live again")
}

// codex TypeScript reports the command line in its tool call and the bare script in its
// permission request: the same command, the same edit.
func TestTheSameScriptInAnotherShapeIsTheSameEdit(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	line := `/bin/zsh -lc 'echo hi > q.txt'`
	got := chaintest.Run(t, c, acp.AgentToClient, patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","title":"x","rawInput":{"command":%q,"cwd":%q}}`, line, dir)))
	require.False(t, got[0].Original)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "q.txt"), []byte("hi\n"), 0o644)) // it ran
	perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"t1","rawInput":{"command":"echo hi > q.txt","cwd":%q}},"options":[]}}`, dir)
	got = chaintest.Run(t, c, acp.AgentToClient, perm)
	assert.Contains(t, field(t, got[0].Raw, "params", "toolCall", "content"), `"oldText":null`, "the edit as first recognised")
}

// Cost: the edits held are bounded by bytes over all live calls.
func TestHeldEditsAreBoundedByBytesOverAllCalls(t *testing.T) {
	const limit = 10 << 10
	c, dir := shellPatchSession(t, &Filter{MaxBytes: limit})
	for _, name := range []string{"a", "b", "c", "big"} {
		size := limit * 4 / 10
		if name == "big" {
			size = limit
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("x", size)), 0o644))
	}
	require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("1", "echo new > a", dir))[0].Original)
	require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("2", "echo new > b", dir))[0].Original)
	assert.True(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("3", "echo new > big", dir))[0].Original, "a file of the whole budget does not fit")
	// Another file than call 1's: an edit of a, not seen to end, holds a (TestTwoPendingEditsOfOneFile).
	require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("4", "echo new > c", dir))[0].Original)
	update := func(id string) string {
		return patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"content":[{"type":"terminal","terminalId":%q}]}`, id, id))
	}
	assert.True(t, chaintest.Run(t, c, acp.AgentToClient, update("1"))[0].Original, "the oldest call made room")
	assert.False(t, chaintest.Run(t, c, acp.AgentToClient, update("2"))[0].Original)
	assert.False(t, chaintest.Run(t, c, acp.AgentToClient, update("4"))[0].Original)
}

// The review's case, scaled down: many never-finished calls, each writing an existing file of
// control bytes (JSON escapes each as six bytes). What is held stays within the budget.
func TestNeverFinishedCallsHoldAtMostTheBudget(t *testing.T) {
	const limit = 1 << 20
	f := &Filter{MaxBytes: limit}
	c, dir := shellPatchSession(t, f)
	control := strings.Repeat("\x01", 100<<10)
	for i := range 40 {
		name := fmt.Sprintf("f%d", i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(control), 0o644))
		chaintest.Run(t, c, acp.AgentToClient, codexCall(fmt.Sprintf("call_%d", i), "echo x > "+name, dir))
		require.LessOrEqual(t, f.held, int64(limit))
	}
	assert.Positive(t, f.held)
}

// On Windows, bare commands run in PowerShell or cmd (claude's Git Bash has Windows paths): they
// stand aside there. The switch is tested here by flipping it.
func TestBareCommandsStandAsideOnWindows(t *testing.T) {
	defer func(v bool) { bareScriptsArePOSIX = v }(bareScriptsArePOSIX)
	bareScriptsArePOSIX = false
	c, _ := shellPatchSession(t, &Filter{})
	got := chaintest.Run(t, c, acp.AgentToClient, claudeBash("toolu_1", "echo hi > f")...)
	assert.True(t, got[1].Original, "claude's bare script")
	c, dir := shellPatchSession(t, &Filter{})
	got = chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "echo hi > f", dir))
	assert.False(t, got[0].Original, "an argv naming bash is still bash")
}

// #25.7: for an agent the filter does not recognise, a call's update may name the command with a
// key the filter does not know (a workdir), and the permission request for the same call name it
// without: the command runs where the update said, which the filter cannot tell. What a call's
// earlier messages said counts: the request stands aside, and so do the call's later messages.
func TestAnUnknownKeyInACallsEarlierMessageCounts(t *testing.T) {
	const line = "bash -lc 'echo hi > f'"
	for _, tc := range []struct {
		name    string
		earlier string // the rawInput members beside command of the call's update; "" no update
		shown   bool
	}{
		{"a workdir the filter does not know", `"cwd":"@DIR@","workdir":"sub"`, false},
		{"another unknown key", `"cwd":"@DIR@","sandbox":"none"`, false},
		{"the same keys", `"cwd":"@DIR@"`, true},
		{"no earlier message", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := namedAgentSession(t, "mystery-agent")
			if tc.earlier != "" {
				members := strings.ReplaceAll(tc.earlier, "@DIR@", dir)
				update := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress","rawInput":{"command":%q,%s}}`, line, members))
				chaintest.Run(t, c, acp.AgentToClient, update)
			}
			perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"c1","title":"t","kind":"execute","rawInput":{"command":%q,"cwd":%q}},"options":[{"optionId":"a","kind":"allow_once","name":"Allow"}]}}`, line, dir)
			got := chaintest.Run(t, c, acp.AgentToClient, perm)
			require.Len(t, got, 1)
			if !tc.shown {
				assert.True(t, got[0].Original, "shown: %s", got[0].Raw)
				return
			}
			assert.Equal(t, filepath.Join(dir, "f"), diffPath(t, got[0].Raw, "params", "toolCall", "content"))
		})
	}
}
