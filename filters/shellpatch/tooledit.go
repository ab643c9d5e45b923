package shellpatch

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// opencode's own file tools (docs/agents.md, "opencode"): its updates report the model's input,
// edit {filePath, oldString, newString, replaceAll?} or write {filePath, content}, and no diff;
// its permission request reports {filepath, diff} (a unified diff it trims for display) and a
// diff item only when that trimmed diff still applies to the file; its final update shows
// oldString → newString, or, for write, no diff at all. Where the input determines the file's new
// text under the tool's own rules, the filter adds the whole file's diff to the permission
// request, which comes before the tool writes anything, and to the call's final update, once the
// file is checked to hold it.

// toolInput is the input of a call of opencode's edit or write tool, as the model gave it.
type toolInput struct {
	path       string // filePath: absolute, or relative to the session's directory
	oldString  string
	newString  string // edit's newString, or write's content
	replaceAll bool
	write      bool // the write tool: newString is the whole file
}

var (
	opencodeEditKeys  = []string{"filePath", "oldString", "newString", "replaceAll"}
	opencodeWriteKeys = []string{"filePath", "content"}
	opencodeAskKeys   = []string{"filepath", "diff"}
)

// toolInputOf reads an edit or write input; ok is false for any other rawInput.
func toolInputOf(rawInput []byte) (toolInput, bool) {
	var in toolInput
	str := func(key string, dst *string) bool {
		raw, ok := rawjson.Get(rawInput, key)
		if !ok || len(raw) == 0 || raw[0] != '"' {
			return false
		}
		s, err := rawjson.Unquote(raw)
		*dst = s
		return err == nil
	}
	if !str("filePath", &in.path) || in.path == "" {
		return toolInput{}, false
	}
	if onlyKeys(rawInput, opencodeWriteKeys) && str("content", &in.newString) {
		in.write = true
		return in, true
	}
	if !onlyKeys(rawInput, opencodeEditKeys) || !str("oldString", &in.oldString) || !str("newString", &in.newString) {
		return toolInput{}, false
	}
	if raw, ok := rawjson.Get(rawInput, "replaceAll"); ok {
		switch string(raw) {
		case "true":
			in.replaceAll = true
		case "false":
		default:
			return toolInput{}, false
		}
	}
	return in, true
}

// opencodeResult is the text opencode's edit or write tool leaves in a file that holds old
// (exists false: no file), or ok false where its rules give no result the filter reproduces
// exactly. The edit tool tries its replacers in turn, the verbatim one first: a oldString found
// once verbatim (or at least once, with replaceAll) is always replaced there; otherwise its
// fuzzy replacers (trimmed lines, normalised whitespace, flexible indentation, anchors, …) may
// pick another span, which this function does not guess. Line endings (opencode converts the
// strings to the file's CRLF), byte order marks (it strips and restores them), U+FFFD (a lone
// surrogate in the model's JSON, which JavaScript would not match) and a '$' in a replaceAll's
// newString (a replacement pattern in JavaScript's String.replaceAll) are left alone.
func opencodeResult(in toolInput, old string, exists bool) (string, bool) {
	for _, s := range []string{in.oldString, in.newString, old} {
		if strings.ContainsAny(s, "\r\uFFFD") || strings.HasPrefix(s, "\uFEFF") {
			return "", false
		}
	}
	if in.write {
		return in.newString, true
	}
	switch {
	case in.oldString == in.newString: // the tool refuses
		return "", false
	case in.oldString == "" && !exists: // creates a new file
		return in.newString, true
	case in.oldString == "" || !exists: // refused: an existing file, or none to edit

		return "", false
	}
	i := strings.Index(old, in.oldString)
	switch {
	case i < 0:
		return "", false
	case in.replaceAll && strings.Contains(in.newString, "$"):
		return "", false
	case in.replaceAll:
		return strings.ReplaceAll(old, in.oldString, in.newString), true
	case strings.LastIndex(old, in.oldString) != i: // several, overlapping ones too: fuzzy replacers decide
		return "", false
	}
	return old[:i] + in.newString + old[i+len(in.oldString):], true
}

// toolEditCall reports whether m belongs to a call of opencode's own edit or write tool: an
// update that reports such an input, or any message of a call known to be one.
func (s *Filter) toolEditCall(m *filters.Message) bool {
	if !strings.EqualFold(agentName(m), "opencode") {
		return false
	}
	path, ok := callPath(m)
	if !ok {
		return false
	}
	callRaw, _ := rawjson.Get(m.Raw, path...)
	id, _ := rawjson.GetString(callRaw, "toolCallId")
	if c := s.calls.Get(m.SessionID(), id); c != nil && (c.tool != nil || c.edit != nil && c.edit.tool) {
		return true
	}
	rawInput, ok := rawjson.Get(callRaw, "rawInput")
	_, isTool := toolInputOf(rawInput)
	return ok && isTool && m.IsToolUpdate()
}

// size is the bytes the input holds, counted against the filter's bound like an edit's.
func (in *toolInput) size() int64 { return int64(len(in.path) + len(in.oldString) + len(in.newString)) }

// holdInput keeps in as the call's input, within the bound on the bytes held: an input larger
// than the bound is not kept (no edit of it could be), and older calls make room for it.
func (s *Filter) holdInput(c *call, in toolInput) {
	s.releaseInput(c)
	if in.size() > s.limit() {
		return
	}
	for s.held+in.size() > s.limit() && s.calls.Len() > 1 {
		s.evictOldest()
	}
	if s.calls.Get(c.session, c.id) != c {
		return // evicted itself
	}
	c.tool = &in
	s.held += in.size()
}

// releaseInput drops the input a call holds.
func (s *Filter) releaseInput(c *call) {
	if c.tool != nil {
		s.held -= c.tool.size()
		c.tool = nil
	}
}

// callPath is where m keeps its tool call: a permission request's toolCall, or an update.
func callPath(m *filters.Message) ([]string, bool) {
	switch {
	case m.Method() == "session/request_permission" && m.IsRequest():
		return []string{"params", "toolCall"}, true
	case m.IsToolUpdate():
		return toolcall.At(), true
	}
	return nil, false
}

// toolEdit returns m with the diff of a call of opencode's edit or write tool added, or nil to
// leave it alone (see toolEditCall).
func (s *Filter) toolEdit(m *filters.Message) ([]byte, error) {
	path, _ := callPath(m)
	callRaw, _ := rawjson.Get(m.Raw, path...)
	id, _ := rawjson.GetString(callRaw, "toolCallId")
	sid := m.SessionID()
	if id == "" || sid == "" || m.Caps.Loading(sid) {
		return nil, nil
	}
	c := s.calls.Get(sid, id)
	permission := path[1] == "toolCall"
	if rawInput, ok := rawjson.Get(callRaw, "rawInput"); ok && !permission {
		if in, ok := toolInputOf(rawInput); ok && (c == nil || c.edit == nil) {
			if c == nil {
				c = s.track(sid, id)
			}
			s.holdInput(c, in) // the input the permission request will be judged by
		}
	}
	if c == nil {
		return nil, nil
	}
	status, _ := rawjson.GetString(callRaw, "status")
	switch {
	case permission && c.edit == nil && c.tool != nil:
		return s.askToolEdit(m, path, callRaw, c)
	case (status == "completed" || status == "failed") && c.edit != nil:
		out, _, err := s.endToolEdit(m.Raw, path, callRaw, c, status)
		s.end(c, status)
		return out, err
	case status == "completed" || status == "failed":
		s.end(c, status)
	}
	return nil, nil
}

// askToolEdit judges the permission request of an edit or write call by the input its last
// update reported: the request must name the same file, which still holds what it held before
// (the tool waits for the answer before it writes). It returns the request with the file's
// diff added before the agent's content, unless that content already shows the same diff.
func (s *Filter) askToolEdit(m *filters.Message, path []string, callRaw []byte, c *call) ([]byte, error) {
	rawInput, _ := rawjson.Get(callRaw, "rawInput")
	asked, _ := rawjson.GetString(rawInput, "filepath")
	root := m.Caps.Cwd(c.session)
	target := c.tool.path
	if !filepath.IsAbs(target) {
		target = filepath.Join(root, target)
	}
	if !onlyKeys(rawInput, opencodeAskKeys) || asked != target || !filepath.IsAbs(root) || filepath.Clean(target) != target {
		return nil, nil
	}
	t, err := checkTarget(m, "", "", shellwrite.Write{Path: target}, filepath.Clean(root), s.OutsideCwd, s.limit(), time.Time{})
	if err != nil {
		return nil, nil
	}
	newText, ok := opencodeResult(*c.tool, string(t.Old), t.Exists)
	if !ok {
		return nil, nil
	}
	e := &edit{root: filepath.Clean(root), tool: true,
		files: []shownFile{{path: t.Path, key: fileKey(t.Path), diff: diffItem(t.Path, t.Old, t.Exists, newText)}}}
	if e.size() > s.limit() || s.pendingOn(e, c) {
		return nil, nil
	}
	for s.held+e.size() > s.limit() && s.calls.Len() > 1 {
		s.evictOldest()
	}
	if s.calls.Get(c.session, c.id) != c {
		return nil, nil // evicted itself
	}
	c.edit, c.root = e, e.root
	s.held += e.size()
	if showsDiff(callRaw, t.Path, t.Old, t.Exists, newText) {
		return nil, nil
	}
	s.note(c, "edit shown", "")
	return addContent(m.Raw, path, callRaw, e.diffs())
}

// showsDiff reports whether the call's content already has a diff item of path from old (""
// for a file that does not exist, as opencode writes it) to newText.
func showsDiff(callRaw []byte, path string, old []byte, exists bool, newText string) bool {
	content, _ := rawjson.Get(callRaw, "content")
	found := false
	_ = rawjson.Elements(content, func(_ int, el []byte) bool {
		typ, _ := rawjson.GetString(el, "type")
		p, _ := rawjson.GetString(el, "path")
		o, _ := rawjson.GetString(el, "oldText")
		n, _ := rawjson.GetString(el, "newText")
		found = typ == "diff" && p == path && n == newText && o == string(old) && (exists || o == "")
		return !found
	})
	return found
}

// addContent sets the call's content to items (comma-separated) followed by the agent's own.
func addContent(raw []byte, path []string, callRaw, items []byte) ([]byte, error) {
	content, err := editContent(callRaw, items, true)
	if err != nil {
		return nil, err
	}
	return rawjson.Set(raw, content, append(append([]string(nil), path...), "content")...)
}

// endToolEdit settles an edit or write call shown with a diff, whose tool ended with status:
// verified, the message shows the diff before the agent's content; otherwise the diff is taken
// back: the file as it is now against the recorded oldText, and a note. The agent's title, kind
// and locations stay. It returns the message, and whether it takes the diff back.
func (s *Filter) endToolEdit(raw []byte, path []string, callRaw []byte, c *call, status string) ([]byte, bool, error) {
	v := s.verify(c.edit, status)
	if v.unread || v.ok { // unread: a replay of a trace that does not hold the file
		if v.ok {
			s.verified.Add(1)
			s.note(c, "edit verified", "")
		}
		out, err := addContent(raw, path, callRaw, c.edit.diffs())
		return out, false, err
	}
	s.takenBack.Add(1)
	s.note(c, "edit taken back", v.note)
	s.log().Warn("shell-to-patch: an edit tool's call did not write the diff shown; it is taken back",
		"sessionId", c.session, "toolCallId", c.id, "status", status, "why", v.note)
	items := v.diffs
	if len(items) > 0 {
		items = append(items, ',')
	}
	note := strings.Replace(v.note, "the command did not", "the tool did not", 1)
	out, err := addContent(raw, path, callRaw, append(items, noteItem(note)...))
	return out, true, err
}
