package shellpatch

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
)

// shownFile is one file an edit shows: where it is, and its diff item.
type shownFile struct {
	path string // absolute, as the diff names it
	// key is the file's symlink-free path when the edit was made (path when it could not be
	// resolved): two edits of one file, however spelled, have the same key.
	key string
	// diff is the JSON content item: v1's {"type":"diff","path","oldText","newText"}, or on a
	// v2 connection v2's {"type":"diff","changes","patch"} (v2.go).
	diff []byte
	// texts are what a v2 diff shows, which its item does not hold as such; nil in v1, whose
	// item holds them.
	texts *v2Texts
}

// newText and oldText read the texts shown back, for the verification after the command ran;
// oldText's exists is false for a new file (null).
func (f shownFile) newText() string {
	if f.texts != nil {
		return f.texts.new
	}
	s, _ := rawjson.GetString(f.diff, "newText")
	return s
}

func (f shownFile) oldText() (text string, exists bool) {
	if f.texts != nil {
		return f.texts.old, f.texts.exists
	}
	raw, _ := rawjson.Get(f.diff, "oldText")
	if len(raw) == 0 || raw[0] != '"' {
		return "", false // null: a new file
	}
	text, err := rawjson.Unquote(raw)
	return text, err == nil
}

func diffItem(path string, old []byte, exists bool, newText string) []byte {
	var oldText *string
	if exists {
		s := string(old)
		oldText = &s
	}
	return acp.AppendDiff(nil, path, oldText, newText)
}

// newEdit is the edit of a command that writes files: one diff per file, in the order the command
// first writes them, from the file before the command to the file after its shown writes. The
// title is the command's first line: a call shown as an edit still names the command that runs.
// execute: the command also runs what the diffs do not show, and stays kind execute. v2: the
// diffs are in ACP v2's shape.
func newEdit(cmd command, files []shellwrite.FileEdit, root string, execute, v2 bool) *edit {
	e := &edit{cmd: cmd, title: rawjson.Quote(escapeInvisible(firstLine(cmd.script))), root: root, execute: execute, v2: v2}
	e.locations = append(e.locations, '[')
	for i, f := range files {
		shown := shownFile{path: f.Path, key: fileKey(f.Path), diff: fileDiff(v2, f.Path, f.Old, f.Exists, string(f.New))}
		if v2 {
			shown.texts = &v2Texts{old: string(f.Old), exists: f.Exists, new: string(f.New)}
		}
		e.files = append(e.files, shown)
		if i > 0 {
			e.locations = append(e.locations, ',')
		}
		e.locations = append(e.locations, `{"path":`...)
		e.locations = append(rawjson.AppendQuote(e.locations, f.Path), '}')
	}
	e.locations = append(e.locations, ']')
	return e
}

// kind is the kind the call is shown as: edit when the command only writes what the diffs show
// (and changes directories), execute when it runs more.
func (e *edit) kind() []byte {
	if e.execute {
		return []byte(`"execute"`)
	}
	return []byte(`"edit"`)
}

// firstLine is the script's first non-blank line, trimmed: what a title can show of it.
func firstLine(script string) string {
	for _, line := range strings.Split(script, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// escapeInvisible writes each character of line that may not show as what it is (a bidi
// control in an echo's text could reorder the title around it) as \u{XXXX}, and a tab as \t:
// the title the proxy makes shows the command, all of it.
func escapeInvisible(line string) string {
	var b strings.Builder
	for _, r := range line {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case shellwrite.Visible(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, `\u{%04X}`, r)
		}
	}
	return b.String()
}

// namesCommand reports whether an agent's title (JSON string) shows the command: it holds the
// script's first line.
func namesCommand(title []byte, script string) bool {
	t, err := rawjson.Unquote(title)
	first := firstLine(script)
	return err == nil && first != "" && strings.Contains(t, first)
}

// diffs is the edit's diff items, comma-separated.
func (e *edit) diffs() []byte {
	var out []byte
	for i, f := range e.files {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, f.diff...)
	}
	return out
}

// show splices the edit into the call at path: kind, locations and the diffs as content, beside
// the command's title, and removes what points at the agent's terminal. The title stays the
// agent's when it names the command; otherwise it is the command's first line. Members the update
// does not carry are set only on the message that announces the call (tool_call, the permission
// request) or shows the command (a rawInput), because an update replaces only what it carries.
// permission: the message is a session/request_permission, whose content is what the user
// approves: the agent's own items stay, after the diff. restate: set every member, as on an
// announcing message (the client was shown another edit for this call). agentTitle is the
// agent's last title for the call, which a message without one may restate.
func show(raw []byte, path []string, callRaw []byte, e *edit, agentTitle []byte, permission, restate bool) ([]byte, error) {
	_, hasRawInput := rawjson.Get(callRaw, "rawInput")
	sessionUpdate, _ := rawjson.GetString(callRaw, "sessionUpdate")
	announcing := hasRawInput || sessionUpdate == "tool_call" || permission || restate
	status, _ := rawjson.GetString(callRaw, "status")
	content := func() ([]byte, error) { return editContent(callRaw, e.diffs(), permission || status == "failed") }
	members := []member{{"kind", func() ([]byte, error) { return e.kind(), nil }},
		{"locations", func() ([]byte, error) { return e.locations, nil }}, {"content", content}}
	out, err := setMembers(raw, path, callRaw, members, announcing)
	if err != nil {
		return nil, err
	}
	if out, err = setTitle(out, path, callRaw, e, agentTitle, announcing); err != nil {
		return nil, err
	}
	return stripTerminal(out, path, callRaw)
}

// setTitle keeps the title the call carries when it names the command, and otherwise sets the
// command's first line: on a message that carries another title, or announces the call (all). A
// message without a title restates the agent's last one, agentTitle, if that names the command.
func setTitle(raw []byte, path []string, callRaw []byte, e *edit, agentTitle []byte, all bool) ([]byte, error) {
	title, carried := rawjson.Get(callRaw, "title")
	switch {
	case carried && namesCommand(title, e.cmd.script), !carried && !all:
		return raw, nil
	case !carried && namesCommand(agentTitle, e.cmd.script):
		title = agentTitle
	default:
		title = e.title
	}
	return rawjson.Set(raw, title, append(append([]string(nil), path...), "title")...)
}

// member is a call member a rewrite may set, with its value made on demand.
type member struct {
	key string
	val func() ([]byte, error)
}

// setMembers sets each member the call carries, and, when all, also those it does not.
func setMembers(raw []byte, path []string, callRaw []byte, members []member, all bool) ([]byte, error) {
	for _, m := range members {
		if _, ok := rawjson.Get(callRaw, m.key); !ok && !all {
			continue
		}
		val, err := m.val()
		if err != nil {
			return nil, err
		}
		if raw, err = rawjson.Set(raw, val, append(append([]string(nil), path...), m.key)...); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// stripTerminal removes the terminal-output extension's keys from the call's _meta: an edit has
// no terminal.
func stripTerminal(raw []byte, path []string, callRaw []byte) ([]byte, error) {
	if meta, ok := rawjson.Get(callRaw, "_meta"); ok && len(meta) > 0 && meta[0] == '{' {
		if tm := acp.ParseTermMeta(meta); tm.Any() {
			return acp.StripTermMeta(raw, path, tm)
		}
	}
	return raw, nil
}

// retract undoes an edit the client was shown for a call whose command turned out to be another:
// the members the update does not carry are set back to a command's (kind execute, the agent's
// last title, no locations, no content), since the client would keep the edit's otherwise.
func retract(raw []byte, path []string, callRaw, title []byte) ([]byte, error) {
	constant := func(v string) func() ([]byte, error) { return func() ([]byte, error) { return []byte(v), nil } }
	members := []member{{"kind", constant(`"execute"`)}, {"locations", constant(`[]`)}, {"content", constant(`[]`)}}
	if title != nil {
		members = append(members, member{"title", constant(string(title))})
	}
	var missing []member
	for _, m := range members {
		if _, ok := rawjson.Get(callRaw, m.key); !ok {
			missing = append(missing, m)
		}
	}
	return setMembers(raw, path, callRaw, missing, true)
}

// editContent is the diffs (comma-separated items), followed by the agent's own content items
// but its terminals when keep: a permission request's reasons, amendments and sandbox
// escalations, or a failed call's error.
func editContent(callRaw, diffs []byte, keep bool) ([]byte, error) {
	out := append([]byte{'['}, diffs...)
	if keep {
		content, _ := rawjson.Get(callRaw, "content")
		if len(content) > 0 && content[0] == '[' {
			err := rawjson.Elements(content, func(_ int, el []byte) bool {
				if t, _ := rawjson.GetString(el, "type"); t != "terminal" {
					if len(out) > 1 {
						out = append(out, ',')
					}
					out = append(out, el...)
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

// fileKey is the symlink-free path of the file at path (whose directory exists), or path.
func fileKey(path string) string {
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}
