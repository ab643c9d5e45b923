package shellpatch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// statusCancelled is how the filter ends a call shown as an edit that was still open when its
// turn ended: it may have run or not.
const statusCancelled = "cancelled"

// verdict is what the files an edit showed hold once its command ended.
type verdict struct {
	ok    bool   // every file holds the newText shown, and the call did not fail
	diffs []byte // comma-separated diff items: each file's recorded oldText against the disk now
	note  string // why the edit is taken back
	// unread: the files were not read back (a replay of a trace that does
	// not hold them): the edit stands unverified.
	unread bool
}

// verify reads each file e shows again, bounded and without following symlinks as for its
// oldText, and compares it with the newText shown. status is the call's last: completed, failed
// or cancelled.
func (s *Filter) verify(e *edit, status string) verdict {
	v := verdict{ok: status != "failed"}
	var why []string
	if status == "failed" {
		why = append(why, "the command failed")
	}
	if e.changed != "" {
		// The new text alone cannot tell: the command may have written it over the user's work.
		v.ok = false
		why = append(why, e.changed)
	}
	for _, f := range e.files {
		now, exists, err := s.readBack(f.path, e.root)
		if errors.Is(err, filters.ErrNotRead) {
			return verdict{unread: true}
		}
		old, oldExists := f.oldText()
		written := err == nil && exists && string(now) == f.newText()
		v.ok = v.ok && written
		switch {
		case err != nil:
			why = append(why, fmt.Sprintf("%s cannot be read back (%v)", f.path, err))
		case !exists:
			why = append(why, f.path+" does not exist")
		case written:
			if status == "failed" {
				why = append(why, f.path+" holds what was shown")
			}
		case oldExists && string(now) == old:
			why = append(why, f.path+" was not written")
		default:
			why = append(why, f.path+" holds other text than was shown")
		}
		if err == nil && exists && (!oldExists || string(now) != old) {
			if len(v.diffs) > 0 {
				v.diffs = append(v.diffs, ',')
			}
			v.diffs = append(v.diffs, fileDiff(e.v2, f.path, []byte(old), oldExists, string(now))...)
		}
	}
	v.note = "acp-proxy: the command did not write what was shown: " + strings.Join(why, "; ") + "."
	if len(v.diffs) > 0 {
		v.note += " The diff shows the file now against the file before."
	}
	return v
}

// noteItem is a text content item.
func noteItem(text string) []byte {
	return append(rawjson.AppendQuote([]byte(`{"type":"content","content":{"type":"text","text":`), text), "}}"...)
}

// takeBack replaces the edit the call at path showed with the truth after it ran: the files as
// they are now against their oldText (no diff for a file that was not written), a note saying
// the command did not write what was shown, and the agent's own content but its terminals. The
// title stays the command.
func takeBack(raw []byte, path []string, callRaw []byte, e *edit, v verdict, agentTitle []byte) ([]byte, error) {
	kind := []byte(`"execute"`)
	if len(v.diffs) > 0 {
		kind = e.kind()
	}
	content := func() ([]byte, error) {
		items := v.diffs
		if len(items) > 0 {
			items = append(items, ',')
		}
		return editContent(callRaw, append(items, noteItem(v.note)...), true)
	}
	members := []member{{"kind", func() ([]byte, error) { return kind, nil }},
		{"locations", func() ([]byte, error) { return e.locations, nil }}, {"content", content}}
	out, err := setMembers(raw, path, callRaw, members, true)
	if err != nil {
		return nil, err
	}
	if out, err = setTitle(out, path, callRaw, e, agentTitle, true); err != nil {
		return nil, err
	}
	return stripTerminal(out, path, callRaw)
}

// callUpdate is an empty tool_call_update of call id in session sid, for the filter to fill: a
// call the agent did not end, or one the filter can no longer keep, is set right by an update
// of the filter's own.
func callUpdate(sid, id string) []byte {
	raw := rawjson.AppendQuote([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":`), sid)
	raw = append(raw, `,"update":{"sessionUpdate":"tool_call_update","toolCallId":`...)
	return append(rawjson.AppendQuote(raw, id), "}}}"...)
}

// endShown settles a call shown as an edit whose command ended with status: verified, the edit
// stands (and the message shows it); otherwise the message (raw, the call at path) takes it
// back. It returns the message to send, and whether it takes the edit back.
func (s *Filter) endShown(raw []byte, path []string, c *call, status string) ([]byte, bool, error) {
	callRaw, _ := rawjson.Get(raw, path...)
	if c.edit.tool {
		return s.endToolEdit(raw, path, callRaw, c, status)
	}
	v := s.verify(c.edit, status)
	if v.unread {
		out, err := show(raw, path, callRaw, c.edit, c.title, false, c.stale)
		return out, false, err
	}
	if v.ok {
		s.verified.Add(1)
		s.note(c, "edit verified", "")
		out, err := show(raw, path, callRaw, c.edit, c.title, false, c.stale)
		return out, false, err
	}
	s.takenBack.Add(1)
	s.note(c, "edit taken back", v.note)
	s.log().Warn("shell-to-patch: a call shown as an edit did not write what was shown; the edit is taken back",
		"sessionId", c.session, "toolCallId", c.id, "status", status, "why", v.note)
	out, err := takeBack(raw, path, callRaw, c.edit, v, c.title)
	return out, true, err
}

// forget drops a call the filter can no longer keep (the byte or count bound) and, when the
// client was shown an edit for it, queues an update of the filter's own that takes it back: a
// call's later updates pass unchanged once it is forgotten, so the edit would stay otherwise.
func (s *Filter) forget(c *call) {
	shown := c.edit != nil || c.stale
	tool := c.edit != nil && c.edit.tool
	if shown {
		s.note(c, "edit forgotten", "")
	}
	s.dropEdit(c)
	if !shown {
		return
	}
	raw := callUpdate(c.session, c.id)
	callRaw, _ := rawjson.Get(raw, toolcall.At()...)
	note := noteItem("acp-proxy: this command is no longer shown as an edit (the proxy's memory for edits is full); what it writes is not checked.")
	members := []member{{"kind", func() ([]byte, error) { return []byte(`"execute"`), nil }},
		{"locations", func() ([]byte, error) { return []byte(`[]`), nil }},
		{"content", func() ([]byte, error) { return append(append([]byte{'['}, note...), ']'), nil }}}
	if tool { // an edit tool's call stays one: only the diff the proxy added goes
		note = noteItem("acp-proxy: the diff shown is no longer checked (the proxy's memory for edits is full).")
		members = members[2:]
	}
	if c.title != nil && !tool {
		title := c.title
		members = append(members, member{"title", func() ([]byte, error) { return title, nil }})
	}
	out, err := setMembers(raw, toolcall.At(), callRaw, members, true)
	if err != nil {
		s.log().Warn("shell-to-patch: cannot take back the edit of a forgotten call", "toolCallId", c.id, "err", err)
		return
	}
	s.forgotten.Add(1)
	s.log().Warn("shell-to-patch: a call shown as an edit was forgotten (memory bound); its edit is taken back",
		"sessionId", c.session, "toolCallId", c.id)
	s.pending = append(s.pending, out)
}

// endTurn settles the calls of session sid still open when its turn ended: each shown as an edit
// is verified as cancelled (taken back, by an update of the filter's own, unless its files hold
// what was shown), each whose edit the client still shows wrongly is taken back, and all are
// forgotten.
func (s *Filter) endTurn(sid string) error {
	var open []*call
	_ = s.calls.Each(func(c *call) error {
		if c.session == sid {
			open = append(open, c)
		}
		return nil
	})
	for _, c := range open {
		raw := callUpdate(sid, c.id)
		var out []byte
		var err error
		switch {
		case c.edit != nil:
			var takenBack bool
			if out, takenBack, err = s.endShown(raw, toolcall.At(), c, statusCancelled); err != nil {
				return err
			}
			if !takenBack && !c.stale {
				out = nil // the client shows the edit, which is true
			}
		case c.stale:
			callRaw, _ := rawjson.Get(raw, toolcall.At()...)
			if out, err = retract(raw, toolcall.At(), callRaw, c.title); err != nil {
				return err
			}
		}
		if out != nil {
			s.pending = append(s.pending, out)
		}
		s.dropEdit(c)
	}
	s.calls.RemoveSession(sid)
	return nil
}
