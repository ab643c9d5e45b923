package shellpatch

import (
	"fmt"
	"strings"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// ACP v2 (docs/agents.md, "ACP v2"): the filter runs on v2 connections too (filters.KnowsV2).
// What differs from v1, as claude-agent-acp 0.101 and codex-acp 2.6 send it:
//   - there is no tool_call: the first tool_call_update of an id opens the call, and codex's
//     opens it in_progress with the command, before asking permission;
//   - the permission request names the call at params.subject.toolCall, subject.type "tool_call";
//   - claude's calls carry no _meta.claudeCode: the tool is the call's name ("Bash");
//   - the prompt response comes when the turn starts; the turn ends with a state_update "idle";
//   - a diff is {"type":"diff","changes":[{operation,path}],"patch":{"format":"git_patch",text}}
//     with absolute paths: v2 has no oldText/newText, so a v1 diff item is not one a v2 client
//     reads.

var _ filters.KnowsV2 = (*Filter)(nil)

// KnowsV2 implements filters.KnowsV2: the filter knows v2's tool calls, permission requests and
// diffs.
func (*Filter) KnowsV2() bool { return true }

// isV2 reports whether m's connection speaks ACP v2 (or later).
func isV2(m *filters.Message) bool { return m.Caps.ProtocolVersion() > 1 }

// permissionPath is where a permission request names its tool call: params.toolCall in v1,
// params.subject.toolCall in v2 when the subject is a tool call. ok is false for another subject.
func permissionPath(m *filters.Message) ([]string, bool) {
	if !isV2(m) {
		return []string{"params", "toolCall"}, true
	}
	if t, _ := rawjson.GetString(m.Raw, "params", "subject", "type"); t != "tool_call" {
		return nil, false
	}
	return []string{"params", "subject", "toolCall"}, true
}

// isPermission reports whether path is a permission request's tool call (see permissionPath).
func isPermission(path []string) bool { return len(path) > 0 && path[len(path)-1] == "toolCall" }

// claudeAgents are the claude-agent-acp releases that serve v2, by the name they give in
// initialize: their v2 calls name the tool as "name" instead of _meta.claudeCode.toolName.
var claudeAgents = map[string]bool{"@agentclientprotocol/claude-agent-acp": true}

// claudeToolName is the claude tool a call reports: _meta.claudeCode.toolName, or, on a v2
// connection to claude-agent-acp, the call's name.
func claudeToolName(m *filters.Message, callRaw []byte) (string, bool) {
	if name, ok := rawjson.GetString(callRaw, "_meta", "claudeCode", "toolName"); ok {
		return name, true
	}
	if !isV2(m) || !claudeAgents[agentName(m)] {
		return "", false
	}
	return rawjson.GetString(callRaw, "name")
}

// opens reports whether m, a v2 tool_call_update, opens its call: the first update of its id
// the filter saw. It remembers the id until the call ends.
func (s *Filter) opens(sid, id string) bool {
	if s.opened.Get(sid, id) != nil {
		return false
	}
	s.opened.Max = maxShellPatchCalls
	s.opened.Add(sid, id, new(bool))
	return true
}

// noteOpened remembers the call a v2 tool_call_update names, when it is one the filter did not
// see yet: a later update with a rawInput then does not open it. A call that ended is forgotten.
func (s *Filter) noteOpened(m *filters.Message) {
	u, ok := m.ToolUpdate()
	if !ok || u.ID == "" || m.SessionID() == "" {
		return
	}
	if u.Status == "completed" || u.Status == "failed" {
		s.opened.Remove(m.SessionID(), u.ID)
		return
	}
	s.opens(m.SessionID(), u.ID)
}

// idle returns the session whose turn m ends on a v2 connection: a session/update
// state_update whose state is "idle".
func idle(m *filters.Message) (string, bool) {
	if !isV2(m) || m.UpdateKind() != "state_update" {
		return "", false
	}
	state, _ := rawjson.GetString(m.Update(), "state")
	sid := m.SessionID()
	return sid, state == "idle" && sid != ""
}

// endV2Turn settles a v2 session whose turn ended (idle): its open calls, and claude's shell, as
// a v1 prompt response does.
func (s *Filter) endV2Turn(m *filters.Message, sid string) error {
	if err := s.endTurn(sid); err != nil {
		return err
	}
	s.opened.RemoveSession(sid)
	s.carryShell(m, capabilities.Request{Method: "session/prompt", Session: sid})
	return nil
}

// v2Texts are the texts a v2 diff shows, kept for the check after the call ended: a v2 diff item
// holds a patch, not the texts.
type v2Texts struct {
	old    string
	exists bool // false: the command creates the file
	new    string
}

// fileDiff is the diff item of one file, in the connection's shape: v2's structured diff, or
// v1's {path, oldText, newText}.
func fileDiff(v2 bool, path string, old []byte, exists bool, newText string) []byte {
	if v2 {
		return v2DiffItem(path, string(old), exists, newText)
	}
	return diffItem(path, old, exists, newText)
}

// v2DiffItem is v2's diff of path from old (exists false: no file) to newText: the change, and
// the git patch of it when there is a change to show (an empty new file, or a write of the same
// text, has no hunk; v2 lets a diff go without its patch). The form is claude-agent-acp's for
// its own edits on v2: absolute paths in the patch, the same as in changes.
func v2DiffItem(path, old string, exists bool, newText string) []byte {
	op := "add"
	if exists {
		op = "modify"
	}
	out := append([]byte(`{"type":"diff","changes":[{"operation":"`), op...)
	out = append(out, `","path":`...)
	out = rawjson.AppendQuote(out, path)
	out = append(out, `,"fileType":"text"}]`...)
	if patch := gitPatch(path, old, exists, newText); patch != "" {
		out = append(out, `,"patch":{"format":"git_patch","text":`...)
		out = append(rawjson.AppendQuote(out, patch), '}')
	}
	return append(out, '}')
}

// patchContext is the lines of context around a change, as git diff writes.
const patchContext = 3

// noNewline is git's line after a line that the file does not end with a newline.
const noNewline = "\\ No newline at end of file\n"

// gitPatch is the git patch of path from old to newText, "" when there is no line to show. It
// is one hunk from the first changed line to the last, with context: not always the shortest
// patch, but one that applied to old gives newText exactly, which is what the filter shows.
func gitPatch(path, old string, exists bool, newText string) string {
	if !exists {
		old = ""
	}
	a, b := textLines(old), textLines(newText)
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	if prefix == len(a) && prefix == len(b) {
		return ""
	}
	start := max(0, prefix-patchContext)
	after := min(patchContext, suffix)
	aEnd, bEnd := len(a)-suffix+after, len(b)-suffix+after
	var p strings.Builder
	name := quoteGitPath(path)
	tab := ""
	if strings.Contains(path, " ") {
		tab = "\t" // git ends a ---/+++ name holding a space with a tab
	}
	fmt.Fprintf(&p, "diff --git %s %s\n", name, name)
	if exists {
		fmt.Fprintf(&p, "--- %s%s\n", name, tab)
	} else {
		fmt.Fprintf(&p, "new file mode 100644\n--- /dev/null\n")
	}
	fmt.Fprintf(&p, "+++ %s%s\n", name, tab)
	fmt.Fprintf(&p, "@@ -%s +%s @@\n", hunkRange(start, aEnd-start), hunkRange(start, bEnd-start))
	writeLines(&p, ' ', a[start:prefix])
	writeLines(&p, '-', a[prefix:len(a)-suffix])
	writeLines(&p, '+', b[prefix:len(b)-suffix])
	writeLines(&p, ' ', a[len(a)-suffix:aEnd])
	return p.String()
}

// writeLines writes each line with its sign; a line without its newline (a file's last) is
// followed by git's note.
func writeLines(p *strings.Builder, sign byte, lines []string) {
	for _, l := range lines {
		p.WriteByte(sign)
		p.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			p.WriteString("\n" + noNewline)
		}
	}
}

// hunkRange is one side of a hunk header, for lines [start, start+n) (0-based): git writes
// "L,N", "L" for one line, and for none the line before the change, ",0".
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// textLines is text's lines, each with its newline; the last may have none.
func textLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the text ended with its newline, or was empty
	}
	return lines
}

// quoteGitPath quotes a path as git does (core.quotePath on): a name with a double quote, a
// backslash, a control byte or a byte over 0x7e is written in double quotes, with C escapes and
// octal for the bytes.
func quoteGitPath(name string) string {
	var b strings.Builder
	quote := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
			quote = true
		case c == '\a' || c == '\b' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			b.WriteString(strings.NewReplacer("\a", `\a`, "\b", `\b`, "\t", `\t`, "\n", `\n`, "\v", `\v`, "\f", `\f`, "\r", `\r`).Replace(string(c)))
			quote = true
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
			quote = true
		default:
			b.WriteByte(c)
		}
	}
	if quote {
		return `"` + b.String() + `"`
	}
	return name
}
