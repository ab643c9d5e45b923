package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// TestShellToPatchWithRealAgents: the mock model asks a real agent to
// write a file with a heredoc, then to run `ls`, through `acp-proxy
// --shell-to-patch --record`. The client sees the write as an edit with
// the right diff, the agent really writes the file, the permission
// request's options and the client's answer pass untouched, and every
// other line (the `ls` call included) arrives exactly as the agent sent it.
func TestShellToPatchWithRealAgents(t *testing.T) {
	const oldContent = "print('the old version')\n"
	cases := []struct {
		name    string
		agent   string
		unified bool   // codex: exec_command, which asks permission before announcing the call
		policy  string // codex approval_policy
		zed     bool
		exists  bool // the file exists before the turn, with oldContent, a minute old
		// justChanged: the file's time is later than the call's opening.
		justChanged bool
		// racy: the agent runs the command as it announces it, so the
		// proxy may find the file already written (see below).
		racy bool
	}{
		// With "untrusted" codex waits for the client's permission, so the
		// proxy sees the call before the command runs.
		{name: "codex-0.16-shell_command-zed-new", agent: "codex-0.16", policy: "untrusted", zed: true},
		{name: "codex-0.16-exec_command-plain-existing", agent: "codex-0.16", unified: true, policy: "untrusted", exists: true},
		{name: "codex-0.13-shell-plain-new", agent: "codex-0.13", policy: "untrusted"},
		{name: "codex-0.13-exec_command-zed-existing", agent: "codex-0.13", unified: true, policy: "untrusted", zed: true, exists: true},
		// claude asks before Bash by default, after the update that
		// carries the command.
		{name: "claude-0.23-zed-new", agent: "claude-0.23", zed: true},
		{name: "claude-0.23-plain-existing", agent: "claude-0.23", exists: true},
		// With "never" codex starts the command as it sends the tool_call.
		{name: "codex-0.16-shell_command-plain-new-never", agent: "codex-0.16", racy: true},
		// codex-acp 2.x in its workspace-write mode asks for a command the model wants run
		// outside the sandbox, after the tool_call; its request may quote the script.
		{name: "codex-2.6-exec_command-plain-new", agent: "codex-2.6", policy: "workspace-write"},
		{name: "codex-2.6-exec_command-zed-existing", agent: "codex-2.6", policy: "workspace-write", zed: true, exists: true},
		// Its tool_call, in_progress, comes as its file changes (a user's save,
		// say): the text before is not known until the permission request, sent
		// before the command runs, which is the first to show the edit. The call
		// still ends as the edit.
		{name: "codex-2.6-exec_command-plain-existing-just-changed", agent: "codex-2.6", policy: "workspace-write", exists: true, justChanged: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := launch(t, tc.agent, []string{heredocScript, "ls"}, tc.unified, tc.policy)
			target := filepath.Join(s.agent.Dir, heredocFile)
			if tc.exists {
				require.NoError(t, os.WriteFile(target, []byte(oldContent), 0o644))
				// A file changed a moment before a call opens running may hold the
				// command's write already: the proxy does not read it as the text
				// before. Written just now, the file would be that or not by how
				// fast the agent starts; its time says which case this is.
				changed := time.Now().Add(-time.Minute)
				if tc.justChanged {
					changed = time.Now().Add(time.Minute)
				}
				require.NoError(t, os.Chtimes(target, changed, changed))
			}
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			opts := acpclient.Options{
				Argv:         append([]string{proxyBin(t), "--shell-to-patch", "--record", trace, "--"}, s.agent.Argv...),
				Env:          s.agent.Env,
				Dir:          s.agent.Dir,
				Capabilities: clientCaps(tc.zed),
			}
			var c *acpclient.Client
			t.Run("session", func(t *testing.T) { c = acpclient.Run(t, opts, "write hello.py, then list the files") })
			if t.Failed() {
				t.FailNow()
			}
			recs := readTraceFile(t, trace)

			// The agent really wrote the file.
			written, err := os.ReadFile(target)
			require.NoError(t, err)
			require.Equal(t, heredocContent, string(written), heredocFile)
			calls := c.ToolCalls()
			require.Len(t, calls, 2, "%d tool calls, want the write and ls\n%s", len(calls), c.Report())
			writeID, lsID := calls[0].ID, calls[1].ID
			var oldText *string
			if tc.exists {
				old := oldContent
				oldText = &old
			}
			wantDiff := diffItem{Type: "diff", Path: target, OldText: oldText, NewText: string(written)}
			if tc.racy {
				// The command may run before the proxy reads its tool_call:
				// then the file it wrote is not read as its text before, and
				// the write is not shown (never a diff of the new text
				// against itself); else the file did not exist yet.
				seen, shown := observedOldText(t, recs, writeID)
				if !shown {
					t.Logf("the write ran before the proxy saw its tool_call: not shown")
					sameLines(t, "client received vs proxy sent", delivered(recs, acp.AgentToClient), clientLines(c))
					return
				}
				assert.Nil(t, seen, "a file the write had made already is shown as its text before")
			}

			// What the client received is what the proxy sent, line for
			// line, and the proxy changed only messages of the write.
			sameLines(t, "client received vs proxy sent", delivered(recs, acp.AgentToClient), clientLines(c))
			var permID json.RawMessage
			recognised := false // the proxy has shown the write as an edit
			for _, r := range recs {
				if r.Dir != acp.AgentToClient || !r.HasLine {
					continue
				}
				e := decodeEnvelope(t, r.Line)
				callID := callIDOf(t, e)
				if !r.HasOut {
					// Before the command is known (claude's tool_call
					// has an empty rawInput) the call passes as it is.
					if callID == writeID && recognised {
						checkUnchangedWriteMessage(t, r.Line)
					}
					continue
				}
				recognised = true
				if !assert.Equal(t, writeID, callID, "the proxy changed a message that is not the write's:\n%s", shorten(r.Line)) {
					continue
				}
				require.Len(t, r.Out, 1, "the proxy sent %d lines for one message of the write", len(r.Out))
				checkRewrite(t, r.Line, r.Out[0], wantDiff)
				if e.Method == "session/request_permission" {
					permID = e.ID
				}
			}

			// The client sees an edit: every update that shows content
			// shows the diff and nothing else, no terminal, and the call
			// ends as an edit of the file.
			st := finalStates(t, clientLines(c))[writeID]
			if assert.Equal(t, `"edit"`, st["kind"], "the write ends as kind %s, title %s; want an edit naming %s", st["kind"], st["title"], heredocFile) {
				assert.Contains(t, st["title"], heredocFile, "the write ends as kind %s, title %s; want an edit naming %s", st["kind"], st["title"], heredocFile)
			}
			want := mustJSON(t, []map[string]string{{"path": target}})
			assert.True(t, jsonEqual(st["locations"], want), "locations %s, want %s", st["locations"], want)
			wantContent := mustJSON(t, []diffItem{wantDiff})
			assert.True(t, jsonEqual(st["content"], wantContent), "content %s,\nwant %s", st["content"], wantContent)
			if assert.Equal(t, `"completed"`, st["status"], "status %s, terminal data %q, exit %s; want completed and no terminal", st["status"], st["terminal data"], st["terminal exit"]) {
				if assert.Empty(t, st["terminal data"], "status %s, terminal data %q, exit %s; want completed and no terminal", st["status"], st["terminal data"], st["terminal exit"]) {
					assert.Empty(t, st["terminal exit"], "status %s, terminal data %q, exit %s; want completed and no terminal", st["status"], st["terminal data"], st["terminal exit"])
				}
			}

			// Permission: the request for the write was rewritten (its
			// options were not), and the client's answer reached the
			// agent as the client sent it.
			perms := c.PermissionRequests()
			asks := tc.policy == "untrusted" || strings.HasPrefix(tc.agent, "claude")
			if asks {
				assert.NotNil(t, permID, "no permission request for the write was rewritten; got %d requests", len(perms))
			}
			if permID != nil {
				answer := answerTo(t, recs, permID)
				assert.NotNil(t, answer, "the client's answer to permission request %s is not in the trace", permID)
				sent := clientSent(c)
				assert.True(t, containsLine(sent, answer), "the answer the proxy got is not what the client sent: %s", shorten(answer))
			}
			if tc.unified && tc.policy == "untrusted" {
				// Observed: unified exec asks before it announces the call,
				// so the rewritten request is the first the client hears
				// of it.
				first := firstMessageOf(t, clientLines(c), writeID)
				assert.Equal(t, "session/request_permission", first, "the first message of the write is %q, want the permission request", first)
			}

			// ls is untouched: its lines are the agent's.
			for _, r := range recs {
				if r.Dir == acp.AgentToClient && r.HasLine && r.HasOut && callIDOf(t, decodeEnvelope(t, r.Line)) == lsID {
					assert.Fail(t, "the ls call was changed", "%s\n→ %s", shorten(r.Line), shorten(r.Out[0]))
				}
			}
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// observedOldText is the oldText the proxy showed for the write, and
// whether it showed the write.
func observedOldText(t *testing.T, recs []trace.Record, id string) (oldText *string, shown bool) {
	t.Helper()
	for _, r := range recs {
		if r.Dir != acp.AgentToClient || !r.HasOut || len(r.Out) != 1 || callIDOf(t, decodeEnvelope(t, r.Line)) != id {
			continue
		}
		_, call := callOf(t, r.Out[0])
		var content []diffItem
		if json.Unmarshal(call["content"], &content) == nil && len(content) == 1 {
			return content[0].OldText, true
		}
	}
	return nil, false
}

// diffItem is a diff content item; OldText nil is JSON null.
type diffItem struct {
	Type    string  `json:"type"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return compact(bytes.TrimSpace(b.Bytes()))
}

// jsonEqual reports whether two JSON texts have the same value (null and
// absent members stay apart).
func jsonEqual(a, b string) bool {
	var av, bv any
	if json.Unmarshal([]byte(a), &av) != nil || json.Unmarshal([]byte(b), &bv) != nil {
		return false
	}
	return reflect.DeepEqual(av, bv)
}

// callIDOf is the toolCallId a message is about: a tool update's, or a
// permission request's toolCall's.
func callIDOf(t *testing.T, e envelope) string {
	t.Helper()
	raw := e.Params.Update
	if e.Method == "session/request_permission" {
		raw = e.Params.ToolCall
	}
	var v struct {
		ToolCallID string `json:"toolCallId"`
	}
	json.Unmarshal(raw, &v)
	return v.ToolCallID
}

// callOf returns the tool call object of a tool update or permission
// request, decoded by member.
func callOf(t *testing.T, line []byte) (envelope, map[string]json.RawMessage) {
	t.Helper()
	e := decodeEnvelope(t, line)
	raw := e.Params.Update
	if e.Method == "session/request_permission" {
		raw = e.Params.ToolCall
	}
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m), "tool call object: %s", shorten(line))
	return e, m
}

// checkRewrite checks one rewritten message of the write against the
// agent's original: the shape of the edit, and everything else as it was.
func checkRewrite(t *testing.T, orig, got []byte, want diffItem) {
	t.Helper()
	oe, o := callOf(t, orig)
	ge, g := callOf(t, got)
	if assert.Equal(t, ge.Method, oe.Method, "method/id changed: %s %s → %s %s", oe.Method, oe.ID, ge.Method, ge.ID) {
		assert.Equal(t, string(ge.ID), string(oe.ID), "method/id changed: %s %s → %s %s", oe.Method, oe.ID, ge.Method, ge.ID)
	}
	// Outside the tool call object, nothing changes (the permission
	// request's options, the session id, the envelope).
	assert.Equal(t, outsideCall(t, got), outsideCall(t, orig), "the message outside its tool call changed:\n%s\n→ %s", shorten(orig), shorten(got))
	if oe.Method == "session/request_permission" {
		var op, gp struct {
			Params struct {
				Options json.RawMessage `json:"options"`
			} `json:"params"`
		}
		json.Unmarshal(orig, &op)
		json.Unmarshal(got, &gp)
		if assert.NotEmpty(t, op.Params.Options, "permission options changed: %s → %s", op.Params.Options, gp.Params.Options) {
			assert.Equal(t, string(gp.Params.Options), string(op.Params.Options), "permission options changed: %s → %s", op.Params.Options, gp.Params.Options)
		}
	}
	// Kept as they were: the id, status, rawInput, rawOutput and anything
	// else the rewrite does not own.
	for k, v := range o {
		switch k {
		case "kind", "title", "locations", "content", "_meta":
			continue
		}
		assert.Equal(t, string(g[k]), string(v), "%s changed: %s → %s", k, shorten(v), shorten(g[k]))
	}
	// _meta: as it was, without the terminal keys.
	var om, gm map[string]json.RawMessage
	json.Unmarshal(o["_meta"], &om)
	json.Unmarshal(g["_meta"], &gm)
	for _, k := range terminalKeys {
		delete(om, k)
		_, ok := gm[k]
		assert.False(t, ok, "_meta.%s survived the rewrite", k)
	}
	if len(om) > 0 || len(gm) > 0 {
		assert.Equal(t, gm, om, "_meta %s, want %s without the terminal keys", g["_meta"], o["_meta"])
	}
	// The edit's own members, where set.
	if v, ok := g["kind"]; ok {
		assert.Equal(t, `"edit"`, string(v), "kind")
	}
	if v, ok := g["title"]; ok {
		assert.Contains(t, string(v), heredocFile, "title")
	}
	if v, ok := g["locations"]; ok {
		assert.True(t, jsonEqual(string(v), mustJSON(t, []map[string]string{{"path": want.Path}})), "locations %s, want [{path: %s}]", v, want.Path)
	}
	if v, ok := g["content"]; ok {
		wc := wantContent(t, oe.Method, o["content"], want)
		assert.True(t, jsonEqual(string(v), wc), "content %s,\nwant %s", shorten(v), wc)
	}
	_, announces := o["rawInput"]
	if ge.Method == "session/request_permission" || announces {
		for _, k := range []string{"kind", "title", "locations", "content"} {
			_, ok := g[k]
			assert.True(t, ok, "%s: the message that shows the command lacks %s", ge.Method, k)
		}
	}
}

// wantContent is the content a rewritten message of the write must show: the diff alone, and in
// a permission request the agent's own items after it (its reasons, proposed amendments and
// sandbox escalations are what the user approves), its terminals excepted.
func wantContent(t *testing.T, method string, orig json.RawMessage, want diffItem) string {
	t.Helper()
	items := []any{want}
	if method == "session/request_permission" {
		var agent []json.RawMessage
		json.Unmarshal(orig, &agent)
		for _, it := range agent {
			var typ struct{ Type string }
			json.Unmarshal(it, &typ)
			if typ.Type != "terminal" {
				items = append(items, it)
			}
		}
	}
	return mustJSON(t, items)
}

// checkUnchangedWriteMessage: a message of the write the proxy left alone,
// once it showed the write as an edit, must not show the terminal or
// other content (it carries none of the members the rewrite replaces).
func checkUnchangedWriteMessage(t *testing.T, line []byte) {
	t.Helper()
	_, m := callOf(t, line)
	var meta map[string]json.RawMessage
	json.Unmarshal(m["_meta"], &meta)
	for _, k := range terminalKeys {
		_, ok := meta[k]
		assert.False(t, ok, "a message of the write went through with _meta.%s: %s", k, shorten(line))
	}
	_, ok := m["content"]
	assert.False(t, ok, "a message of the write went through with its own content: %s", shorten(line))
}

// outsideCall is the message with its tool call object removed.
func outsideCall(t *testing.T, line []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(line, &m))
	if p, ok := m["params"].(map[string]any); ok {
		delete(p, "update")
		delete(p, "toolCall")
	}
	return m
}

// answerTo is the client→agent response to request id, as the proxy
// received it (and, having no "out", passed it on unchanged).
func answerTo(t *testing.T, recs []trace.Record, id json.RawMessage) []byte {
	t.Helper()
	for _, r := range recs {
		if r.Dir != acp.ClientToAgent || !r.HasLine {
			continue
		}
		e := decodeEnvelope(t, r.Line)
		if e.Method == "" && bytes.Equal(e.ID, id) {
			assert.False(t, r.HasOut, "the proxy changed the client's answer: %s → %q", shorten(r.Line), r.Out)
			return r.Line
		}
	}
	return nil
}

func containsLine(lines [][]byte, l []byte) bool {
	for _, x := range lines {
		if bytes.Equal(x, l) {
			return true
		}
	}
	return false
}

// firstMessageOf is the method of the first message about a tool call.
func firstMessageOf(t *testing.T, lines [][]byte, id string) string {
	t.Helper()
	for _, l := range lines {
		e := decodeEnvelope(t, l)
		if callIDOf(t, e) == id {
			return e.Method
		}
	}
	return ""
}

// TestShellToPatchShowsWhatTheAgentWrote runs the scenarios of the safety review through real
// agents: every diff the client was shown (in an update or a permission request) must be what the
// agent really wrote, and the cases the proxy cannot follow must not be shown as edits at all.
// Claude Code keeps its shell's directory between Bash calls and escapes '!' in some commands;
// codex runs each command in a fresh shell, as written.
func TestShellToPatchShowsWhatTheAgentWrote(t *testing.T) {
	cases := []struct {
		name     string
		agent    string
		commands []string
		files    map[string]string // what the agent must have written, relative to the project
		absent   []string          // files the agent must not have written
		edits    int               // calls the client must see as edits
		hook     string            // a claude PreToolUse hook replaces every Bash command with this
		shell    string            // $SHELL for the agent (claude runs its commands in it)
		before   map[string]string // files in the project before the turn
		workdirs []string          // opencode: the workdir the model names for each command
		allow    bool              // opencode: its default permissions, which never ask
		shown    []string          // files a diff must have shown, whatever the call's kind
	}{
		{name: "claude-0.23 a cd the proxy cannot follow", agent: "claude-0.23",
			commands: []string{"cd sub && ls", "cat > notes.md <<'EOF'\nin sub\nEOF"},
			files:    map[string]string{"sub/notes.md": "in sub\n"}, edits: 0},
		{name: "claude-0.23 a recognised cd moves the shell", agent: "claude-0.23",
			commands: []string{"cd sub && echo a > x.txt", "echo b > notes.md"},
			files:    map[string]string{"sub/x.txt": "a\n", "sub/notes.md": "b\n"}, edits: 2},
		{name: "claude-0.23 bang in single quotes, and nul", agent: "claude-0.23",
			commands: []string{`echo 'a!b' > e.txt`, "cat > h.txt <<'EOF'\nwow! 'q'\nEOF", "echo hi >nul"},
			// What Claude Code makes of the first: eval "echo 'a\!b' > e.txt";
			// of the last: echo hi >/dev/null.
			files: map[string]string{"e.txt": "a\\!b\n", "h.txt": "wow! 'q'\n"}, absent: []string{"nul"}, edits: 1},
		{name: "claude-0.101 a cd the proxy cannot follow", agent: "claude-0.101",
			commands: []string{"cd sub && ls", "cat > notes.md <<'EOF'\nin sub\nEOF"},
			files:    map[string]string{"sub/notes.md": "in sub\n"}, edits: 0},
		{name: "claude-0.101 a recognised cd moves the shell", agent: "claude-0.101",
			commands: []string{"cd sub && echo a > x.txt", "echo b > notes.md"},
			files:    map[string]string{"sub/x.txt": "a\n", "sub/notes.md": "b\n"}, edits: 2},
		{name: "claude-0.101 bang in single quotes, and nul", agent: "claude-0.101",
			// 0.101 runs the first as written; the proxy still refuses it,
			// as it cannot tell the versions' transformations apart.
			commands: []string{`echo 'a!b' > e.txt`, "cat > h.txt <<'EOF'\nwow! 'q'\nEOF", "echo hi >nul"},
			files:    map[string]string{"e.txt": "a!b\n", "h.txt": "wow! 'q'\n"}, absent: []string{"nul"}, edits: 1},
		{name: "claude-0.23 a script wrapped in a shell of its own", agent: "claude-0.23",
			commands: claudeWrapped, files: claudeWrappedFiles, edits: len(claudeWrapped)},
		{name: "claude-0.101 a script wrapped in a shell of its own", agent: "claude-0.101",
			commands: claudeWrapped, files: claudeWrappedFiles, edits: len(claudeWrapped)},
		{name: "claude-0.23 quoting Claude Code keeps exact", agent: "claude-0.23", commands: claudeQuoting,
			files: claudeQuotingFiles, edits: len(claudeQuoting)},
		{name: "claude-0.101 quoting Claude Code keeps exact", agent: "claude-0.101", commands: claudeQuoting,
			files: claudeQuotingFiles, edits: len(claudeQuoting)},
		{name: "claude-0.23 in zsh: quoting", agent: "claude-0.23", shell: "/usr/bin/zsh", commands: claudeQuoting,
			files: claudeQuotingFiles, edits: len(claudeQuoting)},
		{name: "claude-0.23 in zsh: a recognised cd moves the shell", agent: "claude-0.23", shell: "/usr/bin/zsh",
			commands: []string{"cd sub && echo a > x.txt", "echo b > notes.md", `echo ${ZSH_VERSION%%.*} > zsh.txt`},
			files:    map[string]string{"sub/x.txt": "a\n", "sub/notes.md": "b\n", "sub/zsh.txt": "5\n"}, edits: 2},
		{name: "claude-0.23 a PreToolUse hook rewrites the command", agent: "claude-0.23", hook: "echo hooked > hooked.txt",
			commands: []string{"echo original > original.txt"},
			files:    map[string]string{"hooked.txt": "hooked\n"}, absent: []string{"original.txt"}, edits: 1},
		{name: "claude-0.101 a PreToolUse hook rewrites the command", agent: "claude-0.101", hook: "echo hooked > hooked.txt",
			commands: []string{"echo original > original.txt"},
			files:    map[string]string{"hooked.txt": "hooked\n"}, absent: []string{"original.txt"}, edits: 1},
		{name: "codex-0.16 each command in a fresh shell", agent: "codex-0.16",
			commands: []string{"cd sub && echo a > x.txt", "echo b > notes.md", `echo 'a!b' > e.txt`, "echo hi >nul"},
			files:    map[string]string{"sub/x.txt": "a\n", "notes.md": "b\n", "e.txt": "a!b\n", "nul": "hi\n"}, edits: 4},
		// opencode asks before each command ("permission": {"bash": "ask"}) and runs it in a
		// fresh shell, in its workdir when the model names one.
		{name: "opencode a heredoc writes a new file", agent: "opencode",
			commands: []string{heredocScript},
			files:    map[string]string{heredocFile: heredocContent}, edits: 1},
		{name: "opencode printf overwrites a file", agent: "opencode",
			before:   map[string]string{"notes.md": "old\n"},
			commands: []string{`printf '%s\n' "new text" > notes.md`},
			files:    map[string]string{"notes.md": "new text\n"}, edits: 1},
		{name: "opencode a workdir", agent: "opencode",
			commands: []string{"echo b > notes.md"}, workdirs: []string{"sub"},
			files: map[string]string{"sub/notes.md": "b\n"}, absent: []string{"notes.md"}, edits: 1},
		{name: "opencode each command in a fresh shell", agent: "opencode",
			commands: []string{"cd sub && echo a > x.txt", "echo b > notes.md"},
			files:    map[string]string{"sub/x.txt": "a\n", "notes.md": "b\n"}, edits: 2},
		// Without asking, opencode runs the command as it reports it: the proxy cannot read
		// the file before the shell changes it.
		{name: "opencode without asking", agent: "opencode", allow: true,
			commands: []string{heredocScript},
			files:    map[string]string{heredocFile: heredocContent}, edits: 0},
		{name: "opencode an append", agent: "opencode",
			before:   map[string]string{"notes.md": "old\n"},
			commands: []string{"echo more >> notes.md"},
			files:    map[string]string{"notes.md": "old\nmore\n"}, edits: 1},
		{name: "codex-0.16 whole scripts", agent: "codex-0.16", before: scriptsBefore, commands: scripts,
			files: scriptsFiles, shown: scriptsShown, edits: len(scripts) - 1},
		{name: "codex-2.6 each command in a fresh shell", agent: "codex-2.6",
			commands: []string{"cd sub && echo a > x.txt", "echo b > notes.md", `echo 'a!b' > e.txt`, "echo hi >nul"},
			files:    map[string]string{"sub/x.txt": "a\n", "notes.md": "b\n", "e.txt": "a!b\n", "nul": "hi\n"}, edits: 4},
		{name: "codex-2.6 whole scripts", agent: "codex-2.6", before: scriptsBefore, commands: scripts,
			files: scriptsFiles, shown: scriptsShown, edits: len(scripts) - 1},
		{name: "claude-0.23 whole scripts", agent: "claude-0.23", before: scriptsBefore, commands: scripts,
			files: scriptsFiles, shown: scriptsShown, edits: len(scripts) - 1},
		{name: "claude-0.101 whole scripts", agent: "claude-0.101", before: scriptsBefore, commands: scripts,
			files: scriptsFiles, shown: scriptsShown, edits: len(scripts) - 1},
		// kilo, an opencode fork, asks and runs its commands as opencode does.
		{name: "kilo a heredoc writes a new file", agent: "kilo",
			commands: []string{heredocScript},
			files:    map[string]string{heredocFile: heredocContent}, edits: 1},
		{name: "kilo an append", agent: "kilo",
			before:   map[string]string{"notes.md": "old\n"},
			commands: []string{"echo more >> notes.md"},
			files:    map[string]string{"notes.md": "old\nmore\n"}, edits: 1},
		// Without the last: a call asked about before its command is one edit fewer.
		{name: "opencode whole scripts", agent: "opencode", before: scriptsBefore, commands: scripts[:len(scripts)-1],
			files: scriptsFiles, edits: len(scripts) - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			policy := "untrusted"
			switch {
			case (tc.agent == "opencode" || tc.agent == "kilo") && !tc.allow:
				policy = "ask"
			case tc.agent == "codex-2.6":
				policy = "workspace-write"
			}
			s := launchScript(t, tc.agent, mockmodel.Script{Commands: tc.commands, Workdirs: tc.workdirs}, false, policy)
			require.NoError(t, os.Mkdir(filepath.Join(s.agent.Dir, "sub"), 0o755))
			for rel, content := range tc.before {
				require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, rel), []byte(content), 0o644))
			}
			if tc.hook != "" {
				addClaudeHook(t, s.agent.ConfigDir, tc.hook)
			}
			env := s.agent.Env
			if tc.shell != "" {
				env = append(env[:len(env):len(env)], "SHELL="+tc.shell)
			}
			opts := acpclient.Options{
				Argv:         append([]string{proxyBin(t), "--shell-to-patch", "--"}, s.agent.Argv...),
				Env:          env,
				Dir:          s.agent.Dir,
				Capabilities: clientCaps(false),
			}
			var c *acpclient.Client
			t.Run("session", func(t *testing.T) { c = acpclient.Run(t, opts, "run the commands") })
			if t.Failed() {
				t.FailNow()
			}
			for rel, want := range tc.files {
				got, err := os.ReadFile(filepath.Join(s.agent.Dir, rel))
				if assert.NoError(t, err) {
					assert.Equal(t, want, string(got), "what the agent wrote to %s", rel)
				}
			}
			for _, rel := range tc.absent {
				_, err := os.Stat(filepath.Join(s.agent.Dir, rel))
				assert.Error(t, err, "the agent wrote %s", rel)
			}
			shown := shownDiffs(t, clientLines(c))
			for path, d := range shown {
				got, err := os.ReadFile(path)
				if assert.NoError(t, err) {
					assert.Equal(t, d.NewText, string(got), "the client was shown %s becoming the left; the agent wrote the right", path)
				}
				rel, _ := filepath.Rel(s.agent.Dir, path)
				old, existed := tc.before[rel]
				if assert.False(t, d.OldText == nil && existed, "the client was shown %s as %s before; it was %q (existed: %v)", rel, mustJSON(t, d.OldText), old, existed) {
					assert.False(t, d.OldText != nil && *d.OldText != old, "the client was shown %s as %s before; it was %q (existed: %v)", rel, mustJSON(t, d.OldText), old, existed)
				}
			}
			for _, rel := range tc.shown {
				_, ok := shown[filepath.Join(s.agent.Dir, rel)]
				if !ok {
					assert.Equal(t, "opencode", tc.agent, "no diff showed %s", rel)
				}
			}
			// opencode may ask before it reports the command (and its workdir): the proxy
			// cannot tell where such a command runs, and leaves it alone.
			early := map[string]bool{}
			if tc.agent == "opencode" || tc.agent == "kilo" {
				early = askedFirst(t, clientLines(c))
			}
			edits, wantEdits := 0, tc.edits
			for id, st := range finalStates(t, clientLines(c)) {
				if st["kind"] == `"edit"` {
					edits++
					assert.False(t, early[id], "call %s was shown as an edit, though its permission request came before its command", id)
				}
			}
			if tc.edits > 0 && len(early) > 0 {
				t.Logf("%d of the calls asked before reporting their command", len(early))
				wantEdits = max(tc.edits-len(early), 0)
			}
			assert.Equal(t, wantEdits, edits)
			if tc.agent == "opencode" || tc.agent == "kilo" {
				// Every edit was shown in the request that asked to run it; opencode's defaults
				// never ask.
				perms := c.PermissionRequests()
				asked := 0
				for _, p := range perms {
					if bytes.Contains(p, []byte(`"type":"diff"`)) {
						asked++
					}
				}
				if assert.False(t, tc.allow && len(perms) > 0, "%d permission requests, %d showing a diff; want one for each of the %d edits (none with its defaults)", len(perms), asked, edits) {
					assert.False(t, !tc.allow && asked != edits, "%d permission requests, %d showing a diff; want one for each of the %d edits (none with its defaults)", len(perms), asked, edits)
				}
			}
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// askedFirst is the set of calls whose permission request came before any update that carried
// their command.
func askedFirst(t *testing.T, lines [][]byte) map[string]bool {
	t.Helper()
	reported, early := map[string]bool{}, map[string]bool{}
	for _, l := range lines {
		e := decodeEnvelope(t, l)
		id := callIDOf(t, e)
		if id == "" {
			continue
		}
		if e.Method == "session/request_permission" {
			early[id] = early[id] || !reported[id]
			continue
		}
		_, call := callOf(t, l)
		var in struct{ Command string }
		json.Unmarshal(call["rawInput"], &in)
		reported[id] = reported[id] || in.Command != ""
	}
	for id, ok := range early {
		if !ok {
			delete(early, id)
		}
	}
	return early
}

// claudeQuoting are commands in each of the ways Claude Code quotes a command for its eval (no ',
// so single quotes; a ', so double quotes with " \ $ ` ! escaped; a | that is no pipe operator,
// so single quotes), which the proxy takes as exact. claudeQuotingFiles is what each writes.
var (
	claudeQuoting = []string{
		`echo "a!b" > q1.txt`,
		`printf '%s\n' "x y" > q2.txt`,
		`echo a\ b "c\"d" > q3.txt`,
		"echo \"\\$HOME \\`x\\`\" > q4.txt",
		`printf 'tab\there\n' > q5.txt`,
		`echo 'it'"'"'s' > q6.txt`,
		`echo "semi;colon & amp" > q7.txt`,
		`echo 'a|b' > q8.txt`,
		`echo "a > b && c | d" > q9.txt`,
	}
	claudeQuotingFiles = map[string]string{
		"q1.txt": "a!b\n", "q2.txt": "x y\n", "q3.txt": "a b c\"d\n", "q4.txt": "$HOME `x`\n",
		"q5.txt": "tab\there\n", "q6.txt": "it's\n", "q7.txt": "semi;colon & amp\n", "q8.txt": "a|b\n",
		"q9.txt": "a > b && c | d\n",
	}
)

// scripts are whole scripts in the forms models write: a write, an append and sed -i on one file,
// mkdir -p before a write into it, tee -a, and last a write then a command (kind execute, with its
// diff: a command the proxy does not know may move claude's shell, which leaves the directory of
// the calls after it unknown).
var (
	scripts = []string{
		"echo a > s.txt; echo b >> s.txt; sed -i 's/a/c/' s.txt",
		"mkdir -p d/e && printf 'x\\n' > d/e/f.txt",
		"# append\ntee -a log.txt <<'EOF'\nmore\nEOF",
		"cat <<'EOF' > repro.py\nprint(1)\nEOF\nls repro.py",
	}
	scriptsBefore = map[string]string{"log.txt": "first\n"}
	scriptsFiles  = map[string]string{"s.txt": "c\nb\n", "d/e/f.txt": "x\n", "log.txt": "first\nmore\n"}
	scriptsShown  = []string{"s.txt", "d/e/f.txt", "log.txt", "repro.py"}
)

// claudeWrapped are claude Bash commands that run their script in a shell of its own: it starts
// where claude's shell is, and its cd leaves claude's shell there.
var (
	claudeWrapped      = []string{"bash -lc 'echo x > w.txt'", "sh -c 'cd sub && echo a > y.txt'", "echo b > notes.md"}
	claudeWrappedFiles = map[string]string{"w.txt": "x\n", "sub/y.txt": "a\n", "notes.md": "b\n"}
)

// shownDiffs is every diff the client was shown where it matters: in a permission request (what
// the user approves) and in a call's final state (what the call did). Updates before the
// permission request show the command the agent started with, which a hook may still replace.
func shownDiffs(t *testing.T, lines [][]byte) map[string]diffItem {
	t.Helper()
	shown := map[string]diffItem{}
	add := func(content []byte) {
		var items []diffItem
		json.Unmarshal(content, &items)
		for _, d := range items {
			if d.Type == "diff" {
				shown[d.Path] = d
			}
		}
	}
	for _, l := range lines {
		if e := decodeEnvelope(t, l); e.Method == "session/request_permission" {
			var call struct {
				Content json.RawMessage `json:"content"`
			}
			json.Unmarshal(e.Params.ToolCall, &call)
			add(call.Content)
		}
	}
	for _, st := range finalStates(t, lines) {
		add([]byte(st["content"]))
	}
	return shown
}

// addClaudeHook adds a PreToolUse hook for Bash to the claude settings in configDir that replaces
// every command with command.
func addClaudeHook(t *testing.T, configDir, command string) {
	t.Helper()
	path := filepath.Join(configDir, "settings.json")
	settings := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		require.NoError(t, json.Unmarshal(b, &settings))
	}
	out := mustJSON(t, map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse",
		"updatedInput":  map[string]any{"command": command, "description": "rewritten by a hook"},
	}})
	hook := filepath.Join(configDir, "rewrite-hook.sh")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '"+out+"'\n"), 0o755))
	settings["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash",
		"hooks":   []any{map[string]any{"type": "command", "command": hook}},
	}}}
	b, err := json.Marshal(settings)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}
