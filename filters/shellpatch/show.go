package shellpatch

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/filters/toolcall"
	"github.com/acp-proxy/acp-proxy/rawjson"
	"github.com/acp-proxy/acp-proxy/shellwrite"
)

func newEdit(cmd command, w shellwrite.Write, t shellwrite.Target, root string) *edit {
	name := t.Path
	if rel, err := filepath.Rel(root, t.Path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		name = rel
	}
	path := rawjson.Quote(t.Path)
	diff := []byte(`{"type":"diff","path":`)
	diff = append(diff, path...)
	diff = append(diff, `,"oldText":`...)
	if t.Exists {
		diff = rawjson.AppendQuote(diff, string(t.Old))
	} else {
		diff = append(diff, "null"...)
	}
	diff = append(diff, `,"newText":`...)
	diff = rawjson.AppendQuote(diff, string(w.Content))
	diff = append(diff, '}')
	return &edit{
		cmd:       cmd,
		title:     rawjson.Quote("Write " + name),
		locations: fmt.Appendf(nil, `[{"path":%s}]`, path),
		diff:      diff,
	}
}

// show splices the edit into the call at path: kind, title, locations and
// the diff as content, and removes what points at the agent's terminal.
// Members the update does not carry are set only on the message that
// announces the call (tool_call, the permission request) or shows the
// command (a rawInput), because an update replaces only what it carries.
// permission: the message is a session/request_permission, whose content
// is what the user approves: the agent's own items stay, after the diff.
// restate: set every member, as on an announcing message (the client was
// shown another edit for this call).
func show(raw []byte, path []string, callRaw []byte, e *edit, permission, restate bool) ([]byte, error) {
	at := func(keys ...string) []string { return append(append([]string(nil), path...), keys...) }
	set := func(key string, val []byte) error {
		var err error
		raw, err = rawjson.Set(raw, val, at(key)...)
		return err
	}
	_, hasRawInput := rawjson.Get(callRaw, "rawInput")
	sessionUpdate, _ := rawjson.GetString(callRaw, "sessionUpdate")
	announcing := hasRawInput || sessionUpdate == "tool_call" || permission || restate
	has := func(key string) bool { _, ok := rawjson.Get(callRaw, key); return ok }

	for _, m := range []struct {
		key string
		val []byte
	}{{"kind", []byte(`"edit"`)}, {"title", e.title}, {"locations", e.locations}} {
		if announcing || has(m.key) {
			if err := set(m.key, m.val); err != nil {
				return nil, err
			}
		}
	}
	if announcing || has("content") {
		status, _ := rawjson.GetString(callRaw, "status")
		content, err := editContent(callRaw, e.diff, permission || status == "failed")
		if err != nil {
			return nil, err
		}
		if err := set("content", content); err != nil {
			return nil, err
		}
	}
	if meta, ok := rawjson.Get(callRaw, "_meta"); ok && len(meta) > 0 && meta[0] == '{' {
		if tm := toolcall.ParseTermMeta(meta); tm.Any() {
			var err error
			if raw, err = toolcall.StripTermMeta(raw, path, tm); err != nil {
				return nil, err
			}
		}
	}
	return raw, nil
}

// retract undoes an edit the client was shown for a call whose command
// turned out to be another: the members the update does not carry are set
// back to a command's (kind execute, the agent's last title, no locations,
// no content), since the client would keep the edit's otherwise.
func retract(raw []byte, path []string, callRaw, title []byte) ([]byte, error) {
	at := func(keys ...string) []string { return append(append([]string(nil), path...), keys...) }
	members := []struct {
		key string
		val []byte
	}{{"kind", []byte(`"execute"`)}, {"locations", []byte(`[]`)}, {"content", []byte(`[]`)}}
	if title != nil {
		members = append(members, struct {
			key string
			val []byte
		}{"title", title})
	}
	for _, m := range members {
		if _, ok := rawjson.Get(callRaw, m.key); ok {
			continue
		}
		var err error
		if raw, err = rawjson.Set(raw, m.val, at(m.key)...); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// editContent is the diff, followed by the agent's own content items but
// its terminals when keep: a permission request's reasons, amendments and
// sandbox escalations, or a failed call's error.
func editContent(callRaw, diff []byte, keep bool) ([]byte, error) {
	out := append([]byte{'['}, diff...)
	if keep {
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
