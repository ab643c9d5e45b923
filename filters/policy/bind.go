package policy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// deniedCode is the JSON-RPC error code of a client request the policy refused (the
// implementation-defined server range; ACP's own codes there are -32000 and -32002).
const deniedCode = -32010

// clientRequest decides a request the agent asks the client to carry out: a denied one is
// answered with an error before the client acts; any other goes on (the client then does as it
// would without a policy: these requests ask nobody).
func (f *Filter) clientRequest(m *filters.Message, out filters.Emitter) error {
	var p struct {
		Path    string   `json:"path"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Cwd     string   `json:"cwd"`
	}
	c := Call{Agent: agentName(m), Cwd: sessionCwd(m)}
	if err := json.Unmarshal(m.Params(), &p); err != nil {
		// fail closed: a request the policy cannot read is not carried out on its behalf
		return f.refuse(m, out, Event{Where: m.Method(), Decision: Decision{Action: Deny, Why: "the request cannot be read: " + err.Error()}})
	}
	switch m.Method() {
	case "terminal/create":
		c.Tool, c.Argv, c.Dir = Bash, append([]string{p.Command}, p.Args...), p.Cwd
		if c.Dir != "" && !filepath.IsAbs(c.Dir) {
			c.Dir = filepath.Join(c.Cwd, c.Dir)
		}
	case "fs/write_text_file":
		c.Tool = Edit
	default:
		c.Tool = Read
	}
	if c.Tool != Bash {
		if !filepath.IsAbs(p.Path) {
			c.Unknown = fmt.Sprintf("path %q is not absolute", p.Path)
		} else {
			c.Paths = []string{p.Path}
		}
	}
	d := f.decide(c, Deny)
	ev := Event{Session: m.SessionID(), Where: m.Method(), What: describe(c), Decision: d}
	if f.DryRun || (d.Action != Deny && d.Action != Stop) {
		f.record(m, ev)
		return nil
	}
	return f.refuse(m, out, ev)
}

// decide is the policy's decision on c, or, should deciding fail (a bug: it panics), onFailure
// with why: the policy fails closed where it binds.
func (f *Filter) decide(c Call, onFailure Action) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Decision{Action: onFailure, Why: fmt.Sprintf("the policy failed to decide: %v", r)}
		}
	}()
	return f.Policy.Decide(c)
}

// refuse answers the client request m with an error before the client acts, for ev's decision.
func (f *Filter) refuse(m *filters.Message, out filters.Emitter, ev Event) error {
	d := ev.Decision
	ev.Session, ev.Bound = m.SessionID(), !f.DryRun
	f.record(m, ev)
	if f.DryRun {
		return nil
	}
	msg := "acp-proxy: denied by the policy: " + d.Why
	if d.Rule != nil {
		msg = "acp-proxy: denied by the policy, " + ruleText(d) + ": " + d.Why
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, m.ID(), deniedCode, rawjson.Quote(msg))
	if err := out.Emit(acp.ClientToAgent, []byte(answer)); err != nil {
		return err
	}
	if err := f.cancelIf(m, out, d); err != nil {
		return err
	}
	return filters.Drop
}

// update follows the calls the agent runs: a call that ends (completed or failed) without a
// permission request ran without asking; its decision, taken on what its updates said, is
// recorded, and when a rule denies it the user is told, and a stop rule cancels the turn.
func (f *Filter) update(m *filters.Message, out filters.Emitter) error {
	u, ok := m.ToolUpdate()
	if !ok {
		return nil
	}
	session := m.SessionID()
	s := f.callOf(session, &u)
	s.shown = true
	if s.stopped != nil {
		return f.closeStopped(m, out, s, &u)
	}
	if s.asked || s.ended {
		if u.Final() {
			s.ended = true
		}
		return nil
	}
	changed := false
	if u.Title != "" {
		s.tc.Title = u.Title
	}
	if u.Kind != "" && u.Kind != s.tc.Kind {
		s.tc.Kind, changed = u.Kind, true
	}
	if u.RawInput != nil && string(u.RawInput) != s.input {
		s.input, changed = string(u.RawInput), true
		s.tc.RawInput = json.RawMessage(s.input)
	}
	if u.Locations != nil && string(u.Locations) != s.locations {
		s.locations, changed = string(u.Locations), true
		_ = json.Unmarshal(u.Locations, &s.tc.Locations)
	}
	if changed {
		s.decision = f.decide(s.tc.call(agentName(m), sessionCwd(m)), Ask)
	}
	if !u.Final() {
		return nil
	}
	s.ended = true
	d := s.decision
	if s.input == "" && s.tc.Kind == "" {
		d = Decision{Action: Ask, Why: "the call never said what it runs"}
	}
	ev := Event{Session: session, ToolCall: u.ID, Where: "unasked", What: describe(s.tc.call(agentName(m), sessionCwd(m))), Decision: d}
	ev.Bound = d.Action == Stop && !f.DryRun
	f.record(m, ev)
	if f.DryRun || (d.Action != Deny && d.Action != Stop) {
		return nil
	}
	if err := f.markRan(m, out, &u, s.tc.Title, d); err != nil {
		return err
	}
	return f.cancelIf(m, out, d)
}

// callOf is what the filter keeps of the call u is an update of, new when u opens a call.
func (f *Filter) callOf(session string, u *acp.ToolUpdate) *callState {
	s := f.calls.Get(session, u.ID)
	switch {
	case s == nil:
		s = &callState{tc: toolCall{ID: u.ID}}
		f.calls.Add(session, u.ID, s)
	case s.ended && u.SessionUpdate == "tool_call": // an id used again: another call
		*s = callState{tc: toolCall{ID: u.ID}}
	}
	return s
}

// closeStopped passes the first update u of a call a stop rule refused at grok-build's hook
// and, unless u ends it, ends the call for the client, failed, naming the rule: grok, cancelled
// at once, announces the call and never reports its end.
func (f *Filter) closeStopped(m *filters.Message, out filters.Emitter, s *callState, u *acp.ToolUpdate) error {
	d := *s.stopped
	s.stopped = nil
	if u.Final() {
		s.ended = true
		return nil
	}
	if err := out.Emit(acp.AgentToClient, m.Raw); err != nil {
		return err
	}
	s.ended = true
	return f.tell(m, out, &toolCall{ID: u.ID}, true, d)
}

// markRan sends the final update u of a call that ran without asking, which a rule would have
// denied, with that said in its title (every client shows a call's title) and as a last item of
// its content when it carries content; nothing else of it changes.
func (f *Filter) markRan(m *filters.Message, out filters.Emitter, u *acp.ToolUpdate, title string, d Decision) error {
	if u.Title != "" {
		title = u.Title
	}
	text := fmt.Sprintf("acp-proxy: ran without asking; the policy would have denied it (%s): %s", ruleText(d), d.Why)
	upd, err := toolcall.EditUpdate(m.Raw, u, func(upd []byte) ([]byte, error) {
		upd, err := rawjson.Set(upd, rawjson.Quote("⚠ ran without asking, denied by policy line "+fmt.Sprint(d.Rule.Line)+": "+title), "title")
		if err != nil || len(u.Content) < 2 || u.Content[0] != '[' {
			return upd, err
		}
		items := rawjson.TrimSpace(u.Content[1 : len(u.Content)-1])
		content := append([]byte{'['}, items...)
		if len(items) > 0 {
			content = append(content, ',')
		}
		content = append(content, `{"type":"content","content":{"type":"text","text":`...)
		content = append(append(content, rawjson.Quote(text)...), "}}]"...)
		return rawjson.Set(upd, content, "content")
	})
	if err != nil {
		return err
	}
	return out.Emit(acp.AgentToClient, upd)
}

// tell sends the user a note on the call tc: the decision and its rule, and the call as failed:
// it did not run, and an agent may never end a call it was refused (codex-acp 0.16 sends nothing
// more of it). shown says the client has seen the call; if not, its tool_call comes first.
func (f *Filter) tell(m *filters.Message, out filters.Emitter, tc *toolCall, shown bool, d Decision) error {
	if tc.ID == "" {
		return nil
	}
	session, id := rawjson.Quote(m.SessionID()), rawjson.Quote(tc.ID)
	if !shown {
		// A call the client has not seen: an update of it names nothing the client knows
		// (agent-shell draws one without a title or kind), so the call is announced first.
		title := cmp.Or(tc.Title, describe(tc.call(agentName(m), sessionCwd(m))), "a tool call")
		announce := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%s,"update":{"sessionUpdate":"tool_call","toolCallId":%s,"title":%s,"kind":%s,"status":"pending"}}}`,
			session, id, rawjson.Quote(title), rawjson.Quote(cmp.Or(tc.Kind, "other")))
		if err := out.Emit(acp.AgentToClient, []byte(announce)); err != nil {
			return err
		}
	}
	text := fmt.Sprintf("acp-proxy: denied by the policy (%s): %s", ruleText(d), d.Why)
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%s,"update":{"sessionUpdate":"tool_call_update","toolCallId":%s,"status":"failed","content":[{"type":"content","content":{"type":"text","text":%s}}]}}}`,
		session, id, rawjson.Quote(text))
	return out.Emit(acp.AgentToClient, []byte(note))
}

// cancelIf cancels the turn of m's session for a stop decision.
func (f *Filter) cancelIf(m *filters.Message, out filters.Emitter, d Decision) error {
	if d.Action != Stop || m.SessionID() == "" {
		return nil
	}
	cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":` + string(rawjson.Quote(m.SessionID())) + `}}`
	return out.Emit(acp.ClientToAgent, []byte(cancel))
}

// describe is what a call does, as its request named it, for the audit.
func describe(c Call) string {
	switch {
	case c.Script != "":
		return c.Script
	case c.Argv != nil:
		return strings.Join(c.Argv, " ")
	case len(c.Paths) > 0:
		rel := make([]string, len(c.Paths))
		for i, p := range c.Paths {
			rel[i] = relPath(p, c.Cwd)
		}
		return strings.Join(rel, " ")
	case c.Host != "":
		return c.Host
	}
	return c.Title
}

// userAnswer is the user's answer m to a permission request whose options' kinds are kinds.
func userAnswer(m *filters.Message, kinds map[string]string) string {
	if e := m.Error(); e != nil {
		msg, _ := rawjson.GetString(e, "message")
		return "error: " + msg
	}
	if action, ok := rawjson.GetString(m.Result(), "action"); ok { // at the interception checkpoint
		return action
	}
	outcome, _ := rawjson.GetString(m.Result(), "outcome", "outcome")
	if outcome != "selected" {
		return outcome
	}
	id, _ := rawjson.GetString(m.Result(), "outcome", "optionId")
	if k := kinds[id]; k != "" {
		return k
	}
	return "option " + id
}
