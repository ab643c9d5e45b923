package shellpatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// approvals is what a permission request showed, kept from the request (the agent→client pump)
// to the client's answer (the client→agent pump, another goroutine): a request is the moment of
// consent, and what it showed must still be true when the user answers. The user may have
// edited a file while the prompt was open; the command would then overwrite that work, and the
// check after the run, which compares the new text, would find it as shown.
type approvals struct {
	mu    sync.Mutex
	asked map[string]askedCall // by the request's JSON-RPC id
	order []string             // ids in the order asked, to bound asked
	// changed are the calls whose files no longer held the shown oldText when the client
	// answered, with why, for the agent→client pump to take into the call's edit.
	changed map[[2]string]string
}

// askedCall is a call whose permission request showed an edit: the files and the text each
// held then.
type askedCall struct {
	session, id, root string
	files             []askedFile
	title             []byte
	locations         []byte
	tool              bool // an agent's own edit tool's: its kind, title and locations stay
}

type askedFile struct {
	path, old string
	exists    bool
}

// asked remembers that the permission request m showed c's edit.
func (s *Filter) asked(m *filters.Message, c *call) {
	id := string(m.ID())
	if id == "" || c.edit == nil {
		return
	}
	a := askedCall{session: c.session, id: c.id, root: c.edit.root, title: c.title, locations: c.edit.locations, tool: c.edit.tool}
	for _, f := range c.edit.files {
		old, exists := f.oldText()
		a.files = append(a.files, askedFile{path: f.path, old: old, exists: exists})
	}
	p := &s.approvals
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.asked == nil {
		p.asked = map[string]askedCall{}
	}
	for len(p.order) >= maxShellPatchCalls { // requests never answered must not grow it
		delete(p.asked, p.order[0])
		p.order = p.order[1:]
	}
	if _, ok := p.asked[id]; !ok {
		p.order = append(p.order, id)
	}
	p.asked[id] = a
}

// answer acts on the client's answer m to a permission request that showed an edit: each file
// is read again, and one that no longer holds the text its diff was computed from is said so at
// once, by an update of the filter's own sent to the client before the answer goes on to the
// agent (before the command runs), and the call's edit is taken back when it ends.
func (s *Filter) answer(m *filters.Message, out filters.Emitter) error {
	if !m.IsResponse() {
		return nil
	}
	a, ok := s.approvals.take(string(m.ID()))
	if !ok || cancelled(m) {
		return nil
	}
	why, replay := s.changedSince(m, a)
	if replay || len(why) == 0 {
		return nil
	}
	reason := "after the permission request was shown, " + strings.Join(why, "; ") +
		": the diff shown was computed from the text before, and is not what the command does now (it may overwrite those changes)"
	s.approvals.markChanged(a, reason)
	s.log().Warn("shell-to-patch: a file changed between a permission request and its answer; the edit shown is taken back",
		"sessionId", a.session, "toolCallId", a.id, "why", reason)
	upd, err := changedUpdate(a, reason)
	if err != nil {
		return err
	}
	return out.Emit(acp.AgentToClient, upd)
}

// take returns and forgets what the permission request id showed.
func (p *approvals) take(id string) (askedCall, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.asked[id]
	if ok {
		delete(p.asked, id)
		for i, o := range p.order {
			if o == id {
				p.order = append(p.order[:i:i], p.order[i+1:]...)
				break
			}
		}
	}
	return a, ok
}

// markChanged records that the files of a's call changed before the answer: its edit is taken
// back when it ends.
func (p *approvals) markChanged(a askedCall, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = map[[2]string]string{}
	}
	p.changed[[2]string{a.session, a.id}] = reason
}

// changedSince says how each file a showed differs now from the text its diff was computed
// from; replay is set when the file cannot be read here (a replay whose trace holds no such read).
func (s *Filter) changedSince(m *filters.Message, a askedCall) (why []string, replay bool) {
	for _, f := range a.files {
		now, exists, err := s.readAt(m, f.path, a.root)
		switch {
		case errors.Is(err, filters.ErrNotRead):
			return nil, true
		case err != nil:
			why = append(why, fmt.Sprintf("%s cannot be read (%v)", f.path, err))
		case exists != f.exists:
			why = append(why, f.path+" was created or removed")
		case string(now) != f.old:
			why = append(why, f.path+" was changed")
		}
	}
	return why, false
}

// changedUpdate is the filter's own update of a's call that says why the edit it showed no
// longer holds: the call back as the command it is (an edit tool's stays an edit), with a note.
func changedUpdate(a askedCall, reason string) ([]byte, error) {
	raw := callUpdate(a.session, a.id)
	callRaw, _ := rawjson.Get(raw, toolcall.At()...)
	note := noteItem("acp-proxy: " + reason + ".")
	members := []member{{"kind", func() ([]byte, error) { return []byte(`"execute"`), nil }},
		{"locations", func() ([]byte, error) { return a.locations, nil }},
		{"content", func() ([]byte, error) { return append(append([]byte{'['}, note...), ']'), nil }}}
	if a.tool {
		members = members[2:] // an edit tool's call stays one: only the diff the proxy added goes
	} else if a.title != nil {
		members = append(members, member{"title", func() ([]byte, error) { return a.title, nil }})
	}
	return setMembers(raw, toolcall.At(), callRaw, members, true)
}

// cancelled reports whether a permission answer is the outcome "cancelled": nothing runs.
func cancelled(m *filters.Message) bool {
	outcome, _ := rawjson.GetString(m.Result(), "outcome", "outcome")
	return outcome == "cancelled" || m.Error() != nil
}

// takeChanged moves what the client→agent pump found at the answers into the calls' edits.
func (s *Filter) takeChanged() {
	p := &s.approvals
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, reason := range p.changed {
		if c := s.calls.Get(k[0], k[1]); c != nil && c.edit != nil {
			c.edit.changed = reason
		}
		delete(p.changed, k)
	}
}

// readAt reads the file at path as the check after the run does, through m's Disk (a trace
// holds the answer), for a message of either pump.
func (s *Filter) readAt(m *filters.Message, path, root string) ([]byte, bool, error) {
	args := fmt.Appendf(nil, `{"root":%s,"outsideCwd":%t,"maxBytes":%d}`, rawjson.Quote(root), s.OutsideCwd, s.limit())
	answer, err := m.ReadDisk(filters.DiskRead{Kind: "read-back", Path: path, Args: args}, func() ([]byte, error) {
		if s.Unverified {
			return nil, filters.ErrNotRead
		}
		now, exists, err := shellwrite.ReadBack(path, root, s.OutsideCwd, s.limit())
		if err != nil {
			return nil, err
		}
		return json.Marshal(readBackAnswer{Exists: exists, Text: string(now)})
	})
	if err != nil {
		return nil, false, err
	}
	var a readBackAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		return nil, false, err
	}
	return []byte(a.Text), a.Exists, nil
}
