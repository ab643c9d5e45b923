package shellpatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// shellPatchSession is a chain with shell-to-patch whose session "S" runs in a
// fresh directory.
func shellPatchSession(t *testing.T, f *Filter) (*filters.Chain, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	c := filters.NewChain(capabilities.New(), f)
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
	return c, dir
}

func patchUpdate(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":` + u + `}}`
}

// codexCall is codex-acp (Rust)'s tool_call for script, run in cwd.
func codexCall(id, script, cwd string) string {
	argv, _ := json.Marshal([]string{"/bin/bash", "-lc", script})
	return patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":%q,"title":%q,"kind":"execute","status":"in_progress","content":[{"type":"terminal","terminalId":%q}],"rawInput":{"call_id":%q,"command":%s,"cwd":%q,"parsed_cmd":[{"type":"unknown","cmd":"x"}]},"_meta":{"terminal_info":{"terminal_id":%q,"cwd":%q},"other":1}}`,
		id, script, id, id, argv, cwd, id, cwd))
}

func field(t *testing.T, raw string, path ...string) string {
	t.Helper()
	v, ok := rawjson.Get([]byte(raw), path...)
	require.True(t, ok, "%v in %s", path, raw)
	return string(v)
}

func TestShellWriteBecomesAnEditWithTheExactDiff(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	script := "cat <<'EOF' > notes.md\n# Notes\n$HOME stays\nEOF"
	got := chaintest.Run(t, c, acp.AgentToClient, codexCall("call_1", script, dir))
	require.Len(t, got, 1)
	msg := got[0].Raw
	path := filepath.Join(dir, "notes.md")
	assert.Equal(t, `"edit"`, field(t, msg, "params", "update", "kind"))
	assert.Equal(t, fmt.Sprintf("%q", script), field(t, msg, "params", "update", "title"), "the agent's title names the command: it stays")
	assert.JSONEq(t, fmt.Sprintf(`[{"path":%q}]`, path), field(t, msg, "params", "update", "locations"))
	assert.JSONEq(t, fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":null,"newText":"# Notes\n$HOME stays\n"}]`, path), field(t, msg, "params", "update", "content"))
	assert.JSONEq(t, `{"other":1}`, field(t, msg, "params", "update", "_meta"), "terminal keys go, others stay")
	orig := codexCall("call_1", script, dir)
	assert.Equal(t, field(t, orig, "params", "update", "rawInput"), field(t, msg, "params", "update", "rawInput"), "the real command stays visible")

	// Every later update keeps showing the edit; the end, once the file holds what was shown,
	// frees the call.
	require.NoError(t, os.WriteFile(path, []byte("# Notes\n$HOME stays\n"), 0o644))
	got = chaintest.Run(t, c, acp.AgentToClient,
		patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","_meta":{"terminal_output":{"terminal_id":"call_1","data":""}}}`),
		patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"x"}}],"rawOutput":{"exit_code":0}}`),
		patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","content":[]}`))
	assert.Equal(t, patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1"}`), got[0].Raw, "an emptied _meta goes too")
	assert.JSONEq(t, fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":null,"newText":"# Notes\n$HOME stays\n"}]`, path), field(t, got[1].Raw, "params", "update", "content"))
	assert.Equal(t, `"completed"`, field(t, got[1].Raw, "params", "update", "status"))
	assert.True(t, got[2].Original, "after the end the call is forgotten")
}

func TestPermissionFirstReadsTheOldTextBeforeTheCommandRuns(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	f := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(f, []byte("old\n"), 0o644))
	argv, _ := json.Marshal([]string{"bash", "-lc", "printf 'new\\n' > a.txt"})
	perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":"c2","kind":"execute","status":"pending","title":"printf","rawInput":{"command":%s,"cwd":%q},"content":[{"type":"content","content":{"type":"text","text":"printf"}}]},"options":[{"kind":"allow_once","name":"Yes","optionId":"approved"},{"kind":"reject_once","name":"No","optionId":"abort"}]}}`, argv, dir)
	got := chaintest.Run(t, c, acp.AgentToClient, perm)
	want := fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":"old\n","newText":"new\n"}]`, f)
	assert.JSONEq(t, fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":"old\n","newText":"new\n"},{"type":"content","content":{"type":"text","text":"printf"}}]`, f),
		field(t, got[0].Raw, "params", "toolCall", "content"), "the agent's own content stays, after the diff")
	assert.Equal(t, `"edit"`, field(t, got[0].Raw, "params", "toolCall", "kind"))
	assert.Equal(t, field(t, perm, "params", "options"), field(t, got[0].Raw, "params", "options"), "options untouched")
	assert.Equal(t, `0`, field(t, got[0].Raw, "id"))

	require.NoError(t, os.WriteFile(f, []byte("new\n"), 0o644)) // the command ran
	got = chaintest.Run(t, c, acp.AgentToClient, codexCall("c2", "printf 'new\\n' > a.txt", dir))
	assert.JSONEq(t, want, field(t, got[0].Raw, "params", "update", "content"), "oldText was read once, before the write")
}

func TestClaudeCallBecomesAnEditWhenItsCommandArrives(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	got := chaintest.Run(t, c, acp.AgentToClient,
		patchUpdate(`{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"toolu_1"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":"toolu_1"}]}`),
		patchUpdate(`{"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"toolu_1","sessionUpdate":"tool_call_update","rawInput":{"command":"echo hello world > out.txt","description":"Write"},"title":"echo hello world > out.txt"}`))
	assert.True(t, got[0].Original, "rawInput {} is no command yet")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "out.txt"), []byte("hello world\n"), 0o644)) // the command ran
	got = append(got, chaintest.Run(t, c, acp.AgentToClient,
		patchUpdate(`{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"toolu_1","exit_code":0,"signal":null}},"toolCallId":"toolu_1","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"","content":[{"type":"terminal","terminalId":"toolu_1"}]}`))...)
	want := fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":null,"newText":"hello world\n"}]`, filepath.Join(dir, "out.txt"))
	assert.JSONEq(t, want, field(t, got[1].Raw, "params", "update", "content"))
	assert.Equal(t, `"edit"`, field(t, got[1].Raw, "params", "update", "kind"))
	assert.Equal(t, `"echo hello world > out.txt"`, field(t, got[1].Raw, "params", "update", "title"))
	assert.JSONEq(t, want, field(t, got[2].Raw, "params", "update", "content"))
	assert.JSONEq(t, `{"claudeCode":{"toolName":"Bash"}}`, field(t, got[2].Raw, "params", "update", "_meta"))
}

func TestCodexTypeScriptCommandLine(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	cmdline := `/bin/zsh -lc 'printf '\''%s\n'\'' "it'\''s" > q.txt'`
	msg := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","title":"x","rawInput":{"command":%q,"cwd":%q},"content":[{"type":"terminal","terminalId":"t1"}],"_meta":{"terminal_info":{"terminal_id":"t1","cwd":%q}}}`, cmdline, dir, dir))
	got := chaintest.Run(t, c, acp.AgentToClient, msg)
	assert.JSONEq(t, fmt.Sprintf(`[{"type":"diff","path":%q,"oldText":null,"newText":"it's\n"}]`, filepath.Join(dir, "q.txt")), field(t, got[0].Raw, "params", "update", "content"))
}

// A failed call wrote nothing (or not what was shown): its edit is taken back, with the error.
func TestFailedWriteShowsAFailedEditWithTheError(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "echo x > f", dir))
	got := chaintest.Run(t, c, acp.AgentToClient, patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed","content":[{"type":"terminal","terminalId":"c1"},{"type":"content","content":{"type":"text","text":"permission denied"}}]}`))
	note := fmt.Sprintf("acp-proxy: the command did not write what was shown: the command failed; %s does not exist.", filepath.Join(dir, "f"))
	assert.JSONEq(t, fmt.Sprintf(`[{"type":"content","content":{"type":"text","text":%q}},{"type":"content","content":{"type":"text","text":"permission denied"}}]`, note),
		field(t, got[0].Raw, "params", "update", "content"))
	assert.Equal(t, `"execute"`, field(t, got[0].Raw, "params", "update", "kind"))
}

func TestWhatCannotBeProvenPassesByteIdentical(t *testing.T) {
	c, dir := shellPatchSession(t, &Filter{})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "escape")))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("x", DefaultMaxPatchBytes)), 0o644))
	lines := []string{
		codexCall("a", "echo x | tee f", dir),            // a pipeline
		codexCall("b", "ls -la", dir),                    // not a write
		codexCall("c", "echo x > "+outside+"/f", dir),    // outside the session
		codexCall("d", "echo x > escape/f", dir),         // a symlink out
		codexCall("e", "echo x > sub", dir),              // a directory
		codexCall("f", "echo x > nodir/f", dir),          // no such directory
		codexCall("g", "echo $HOME > f", dir),            // an expansion
		codexCall("h", "echo x > big", dir),              // too big to show
		codexCall("i", "echo x > f\r", dir),              // CR
		codexCall("j", "cat <<EOF > f\n$(id)\nEOF", dir), // expansion in heredoc
		strings.Replace(codexCall("k", "echo x > f", dir), `"sessionId":"S"`, `"sessionId":"unknown"`, 1),
		strings.Replace(codexCall("l", "echo x > f", dir), `"kind":"execute"`, `"kind":"read"`, 1),
		patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"zz","content":[{"type":"content","content":{"type":"text","text":"> f"}}]}`),
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"tool_call"`,
	}
	for _, l := range lines {
		got := chaintest.Run(t, c, acp.AgentToClient, l)
		require.Len(t, got, 1)
		assert.True(t, got[0].Original, "rewritten: %s", l)
	}
	// With --patch-outside-cwd the outside write is shown.
	c2, dir2 := shellPatchSession(t, &Filter{OutsideCwd: true})
	got := chaintest.Run(t, c2, acp.AgentToClient, codexCall("c", "echo x > "+outside+"/f", dir2))
	assert.False(t, got[0].Original)
}

func BenchmarkShellPatch(b *testing.B) {
	dir := b.TempDir()
	caps := capabilities.New()
	caps.ObserveRequest("session/new", []byte("1"), []byte(fmt.Sprintf(`{"cwd":%q}`, dir)))
	caps.ObserveResponse([]byte("1"), []byte(`{"sessionId":"S"}`))
	msgs := map[string]string{
		"agent-message-chunk": patchUpdate(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + strings.Repeat("hello ", 200) + `"}}`),
		"output-delta":        patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"x","_meta":{"terminal_output":{"terminal_id":"x","data":"` + strings.Repeat("line > x\\n", 100) + `"}}}`),
		"plain-command":       codexCall("p", "ls -la > /dev/null", dir),
		"heredoc-write":       codexCall("w", "cat <<'EOF' > notes.md\n"+strings.Repeat("some text\n", 100)+"EOF", dir),
	}
	for name, msg := range msgs {
		b.Run(name, func(b *testing.B) {
			raw := []byte(msg)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for range b.N {
				f := &Filter{}
				m := filters.NewMessage(acp.AgentToClient, raw, time.Time{}, caps)
				_ = f.Apply(m, discardEmitter{})
			}
		})
	}
}

type discardEmitter struct{}

func (discardEmitter) Emit(acp.Direction, []byte) error { return nil }

// BenchmarkShellPatchLiveCalls measures a 100 KB output update of a call that is not an edit, with
// no live edits and with 1,024: finding the message's call is one lookup, not a search per call,
// so the two should cost the same.
func BenchmarkShellPatchLiveCalls(b *testing.B) {
	dir := b.TempDir()
	caps := capabilities.New()
	caps.ObserveRequest("session/new", []byte("1"), []byte(fmt.Sprintf(`{"cwd":%q}`, dir)))
	caps.ObserveResponse([]byte("1"), []byte(`{"sessionId":"S"}`))
	update := []byte(patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"other","_meta":{"terminal_output":{"terminal_id":"other","data":"` + strings.Repeat("0123456789abcdef", 100<<10/16) + `"}}}`))
	b.Run("baseline=parse", func(b *testing.B) {
		b.SetBytes(int64(len(update)))
		for range b.N {
			m := filters.NewMessage(acp.AgentToClient, update, time.Time{}, caps)
			_, _ = m.ToolUpdate() // what every filter of the chain pays to read the update
		}
	})
	for _, live := range []int{0, maxShellPatchCalls} {
		b.Run(fmt.Sprintf("live=%d", live), func(b *testing.B) {
			f := &Filter{}
			for i := range live {
				m := filters.NewMessage(acp.AgentToClient, []byte(codexCall(fmt.Sprintf("call_%d", i), fmt.Sprintf("echo x > f%d", i), dir)), time.Time{}, caps)
				require.NoError(b, f.Apply(m, discardEmitter{}))
			}
			require.Equal(b, live, f.calls.Len())
			b.SetBytes(int64(len(update)))
			b.ResetTimer()
			for range b.N {
				m := filters.NewMessage(acp.AgentToClient, update, time.Time{}, caps)
				_ = f.Apply(m, discardEmitter{})
			}
		})
	}
}
