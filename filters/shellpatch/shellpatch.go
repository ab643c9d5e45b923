package shellpatch

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/filters/toolcall"
	"github.com/acp-proxy/acp-proxy/rawjson"
	"github.com/acp-proxy/acp-proxy/shellwrite"
)

// DefaultMaxPatchBytes bounds the existing file read as a diff's oldText.
const DefaultMaxPatchBytes = 1 << 20

// maxShellPatchCalls bounds the calls remembered at once; a call that never
// ends (its final update lost) must not grow the state forever.
const maxShellPatchCalls = 1024

// ShellPatch shows shell commands that provably write one file (`cat
// <<'EOF' > f`, `printf … > f`, `echo … > f`) as edit tool calls with a
// diff, the way agents show their own edits. The recognition is
// shellwrite's; this filter finds the command in each agent's rawInput,
// checks the target against the session's directory, and keeps every later
// update of the call showing the edit.
//
// The rewrite is display-only: the agent still runs the command. Anything
// the filter cannot prove leaves the message byte-identical.
type ShellPatch struct {
	MaxBytes   int64 // largest existing file shown as oldText; 0: DefaultMaxPatchBytes
	OutsideCwd bool  // also rewrite writes outside the session's directory

	calls map[string]*shellCall // by toolCallId; only the agent→client pump touches it
	order []string              // toolCallIds, oldest first, for the bound
}

// shellCall is a recognised write, fixed when the proxy first saw the call.
type shellCall struct {
	quotedID  []byte // the toolCallId as a JSON string, to spot its updates
	title     []byte // JSON string
	locations []byte // JSON array
	diff      []byte // JSON content item
}

var _ filters.Filter = (*ShellPatch)(nil)

func (*ShellPatch) Name() string { return "shell-to-patch" }

func (s *ShellPatch) Apply(_ context.Context, m *filters.Message, out filters.Emitter) error {
	if m.Dir != filters.AgentToClient || !s.mayConcern(m.Raw) {
		return out.Emit(m.Dir, m.Raw)
	}
	var (
		raw []byte
		err error
	)
	switch {
	case m.Method() == "session/request_permission" && m.IsRequest():
		raw, err = s.rewrite(m, []string{"params", "toolCall"}, true)
	case toolcall.IsToolUpdate(m):
		raw, err = s.rewrite(m, []string{"params", "update"}, m.UpdateKind() == "tool_call")
	}
	if err != nil {
		return err
	}
	if raw == nil {
		return out.Emit(m.Dir, m.Raw)
	}
	return out.Emit(m.Dir, raw)
}

// quotedRawInput is the key every command-carrying call has.
var quotedRawInput = []byte(`"rawInput"`)

// mayConcern reports, without parsing, whether raw may start a rewrite (it
// carries a rawInput) or continue one (it names a call being shown as an
// edit). Everything else — message chunks, output deltas, plans — passes at
// the cost of a substring search. A key spelled with escapes reads as absent,
// which leaves the message untouched: the safe side.
func (s *ShellPatch) mayConcern(raw []byte) bool {
	if bytes.Contains(raw, quotedRawInput) {
		return true
	}
	for _, c := range s.calls {
		if bytes.Contains(raw, c.quotedID) {
			return true
		}
	}
	return false
}

// rewrite returns the message with the call at path shown as an edit, or
// nil to leave it alone.
func (s *ShellPatch) rewrite(m *filters.Message, path []string, announces bool) ([]byte, error) {
	callRaw, ok := rawjson.Get(m.Raw, path...)
	if !ok {
		return nil, nil
	}
	id, _ := rawjson.GetString(callRaw, "toolCallId")
	if id == "" {
		return nil, nil
	}
	call := s.calls[id]
	if call == nil {
		// Only a call that carries a command can start a rewrite, and
		// every shell write has a '>': skip the rest without parsing.
		rawInput, ok := rawjson.Get(callRaw, "rawInput")
		if !ok || !mayRedirect(rawInput) {
			return nil, nil
		}
		if kind, ok := rawjson.GetString(callRaw, "kind"); ok && kind != "execute" {
			return nil, nil
		} else if !ok && announces {
			return nil, nil // a new call without a kind is "other", not a command
		}
		call = s.recognise(m, callRaw, rawInput)
		if call == nil {
			return nil, nil
		}
		call.quotedID = rawjson.Quote(id)
		s.remember(id, call)
	}
	out, err := s.show(m.Raw, path, callRaw, call)
	if err != nil {
		return nil, err
	}
	if status, _ := rawjson.GetString(callRaw, "status"); status == "completed" || status == "failed" {
		s.forget(id)
	}
	return out, nil
}

// mayRedirect reports whether JSON text may hold a '>', raw or escaped (Go
// encoders write \u003e).
func mayRedirect(raw []byte) bool {
	return bytes.IndexByte(raw, '>') >= 0 || bytes.Contains(raw, []byte(`\u003e`)) || bytes.Contains(raw, []byte(`\u003E`))
}

// recognise decides whether the call's command provably writes one file.
func (s *ShellPatch) recognise(m *filters.Message, callRaw, rawInput []byte) *shellCall {
	script, cwd, ok := commandOf(callRaw, rawInput)
	if !ok {
		return nil
	}
	sess, ok := m.Caps.Session(m.SessionID())
	if !ok || !filepath.IsAbs(sess.Cwd) {
		return nil // no session directory to check the target against
	}
	if cwd == "" {
		cwd = sess.Cwd // claude runs commands in the session's directory
	}
	if !filepath.IsAbs(cwd) || strings.ContainsAny(script+cwd, "\r\x00") {
		return nil
	}
	w, err := shellwrite.Parse(script, filepath.Clean(cwd))
	if err != nil {
		return nil
	}
	limit := s.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxPatchBytes
	}
	old, exists, err := shellwrite.CheckTarget(w, filepath.Clean(sess.Cwd), s.OutsideCwd, limit)
	if err != nil {
		return nil
	}
	return newShellCall(w, old, exists, filepath.Clean(sess.Cwd))
}

func newShellCall(w shellwrite.Write, old []byte, exists bool, root string) *shellCall {
	name := w.Path
	if rel, err := filepath.Rel(root, w.Path); err == nil && !strings.HasPrefix(rel, "..") {
		name = rel
	}
	path := rawjson.Quote(w.Path)
	diff := []byte(`{"type":"diff","path":`)
	diff = append(diff, path...)
	diff = append(diff, `,"oldText":`...)
	if exists {
		diff = rawjson.AppendQuote(diff, string(old))
	} else {
		diff = append(diff, "null"...)
	}
	diff = append(diff, `,"newText":`...)
	diff = rawjson.AppendQuote(diff, string(w.Content))
	diff = append(diff, '}')
	return &shellCall{
		title:     rawjson.Quote("Write " + name),
		locations: fmt.Appendf(nil, `[{"path":%s}]`, path),
		diff:      diff,
	}
}

// commandOf finds the shell script and its working directory in rawInput,
// in each agent's shape (docs/agents.md). cwd "" means the session's.
func commandOf(callRaw, rawInput []byte) (script, cwd string, ok bool) {
	cmd, ok := rawjson.Get(rawInput, "command")
	if !ok {
		return "", "", false
	}
	cwd, _ = rawjson.GetString(rawInput, "cwd")
	switch {
	case len(cmd) > 0 && cmd[0] == '[': // codex-acp (Rust): argv
		var argv []string
		err := rawjson.Elements(cmd, func(_ int, el []byte) bool {
			s, uerr := rawjson.Unquote(el)
			if uerr != nil {
				argv = nil
				return false
			}
			argv = append(argv, s)
			return true
		})
		if err != nil || argv == nil {
			return "", "", false
		}
		script, ok = shellwrite.ScriptFromArgv(argv)
		return script, cwd, ok && cwd != ""
	case len(cmd) > 0 && cmd[0] == '"':
		line, err := rawjson.Unquote(cmd)
		if err != nil {
			return "", "", false
		}
		if script, ok := shellwrite.ScriptFromCommandLine(line); ok {
			return script, cwd, true // codex-acp (TypeScript): a shell-quoted string
		}
		if isClaude(callRaw, rawInput) {
			return line, "", true // claude-agent-acp: the bare script
		}
	}
	return "", "", false
}

// isClaude reports a claude-agent-acp Bash call: its tool messages carry
// _meta.claudeCode, its rawInput a description beside the command.
func isClaude(callRaw, rawInput []byte) bool {
	if _, ok := rawjson.Get(callRaw, "_meta", "claudeCode"); ok {
		return true
	}
	_, hasDesc := rawjson.Get(rawInput, "description")
	_, hasCwd := rawjson.Get(rawInput, "cwd")
	return hasDesc && !hasCwd
}

// show splices the edit into the call at path: kind, title, locations and
// the diff as content, and removes what points at the agent's terminal.
// Members the update does not carry are set only on the message that
// announces the call (tool_call, the permission request) or first shows
// the command (claude's rawInput update), because an update replaces only
// what it carries.
func (s *ShellPatch) show(raw []byte, path []string, callRaw []byte, call *shellCall) ([]byte, error) {
	set := func(key string, val []byte) error {
		var err error
		raw, err = rawjson.Set(raw, val, append(path[:len(path):len(path)], key)...)
		return err
	}
	_, hasRawInput := rawjson.Get(callRaw, "rawInput")
	sessionUpdate, _ := rawjson.GetString(callRaw, "sessionUpdate")
	announcing := hasRawInput || sessionUpdate == "tool_call" || len(path) == 2 && path[1] == "toolCall"
	has := func(key string) bool { _, ok := rawjson.Get(callRaw, key); return ok }

	if announcing || has("kind") {
		if err := set("kind", []byte(`"edit"`)); err != nil {
			return nil, err
		}
	}
	if announcing || has("title") {
		if err := set("title", call.title); err != nil {
			return nil, err
		}
	}
	if announcing || has("locations") {
		if err := set("locations", call.locations); err != nil {
			return nil, err
		}
	}
	if announcing || has("content") {
		content, err := editContent(callRaw, call.diff)
		if err != nil {
			return nil, err
		}
		if err := set("content", content); err != nil {
			return nil, err
		}
	}
	if meta, ok := rawjson.Get(callRaw, "_meta"); ok && len(meta) > 0 && meta[0] == '{' {
		for _, k := range []string{toolcall.MetaTerminalInfo, toolcall.MetaTerminalOutput, toolcall.MetaTerminalOutputDelta, toolcall.MetaTerminalExit} {
			var err error
			raw, _, err = rawjson.Delete(raw, append(path[:len(path):len(path)], "_meta", k)...)
			if err != nil {
				return nil, err
			}
		}
	}
	return raw, nil
}

// editContent is the diff, followed, on a failed call, by the agent's own
// text content (its error message); terminal items never come along.
func editContent(callRaw, diff []byte) ([]byte, error) {
	out := append([]byte{'['}, diff...)
	if status, _ := rawjson.GetString(callRaw, "status"); status == "failed" {
		content, _ := rawjson.Get(callRaw, "content")
		if len(content) > 0 && content[0] == '[' {
			err := rawjson.Elements(content, func(_ int, el []byte) bool {
				if t, _ := rawjson.GetString(el, "type"); t != "terminal" {
					out = append(append(out, ','), el...)
				}
				return true
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return append(out, ']'), nil
}

func (s *ShellPatch) remember(id string, c *shellCall) {
	if s.calls == nil {
		s.calls = map[string]*shellCall{}
	}
	if len(s.order) >= maxShellPatchCalls {
		delete(s.calls, s.order[0])
		s.order = s.order[1:]
	}
	s.calls[id] = c
	s.order = append(s.order, id)
}

func (s *ShellPatch) forget(id string) {
	delete(s.calls, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}
