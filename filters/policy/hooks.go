package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// grok-build's client hooks, as grok-build 1.0.41 runs them (docs/policy.md, "grok-build's
// hooks"). The agent advertises them in initialize, agentCapabilities._meta["x.ai/hooks"]
// ({"blockingEvents":["pre_tool_use",…],"decisions":["deny","block"],…}); a client registers
// callbacks per session in the _meta["x.ai/hooks"] of session/new, session/load or
// session/resume: {"pre_tool_use":[{"matcher":"*","hookCallbackIds":["ID"]}]}. Before each
// tool call runs, before its tool_call update and before any permission request, the agent
// then sends the awaited request HookMethod, {"hookCallbackId":"ID",
// "hookEventName":"pre_tool_use","sessionId","cwd","permissionMode","toolName","toolUseId",
// "toolInput"}. It reads {"decision":"deny","reason":R} (or "block") as a refusal: the call
// does not run, and it fails with the text "Hook denied: R", which the model reads too. Any
// other answer lets the call go on to the agent's own permission flow: {} (no decision), an
// unknown decision, "allow" and "ask" alike (a client hook cannot make it ask), and so do a
// JSON-RPC error, a malformed answer and none in time (31 s was too late; grok fails open).
//
// With a policy, the proxy registers a pre_tool_use callback of its own in every session of an
// agent that advertises the event, beside the client's, and answers it:
//
//   - deny: decision deny, naming the rule; stop: the same, and the turn is cancelled;
//   - allow, ask: {} — the agent goes on as it would without the proxy, asking permission where
//     its mode asks, which the policy decides again (an allow there answers allow-once);
//   - a request it cannot read, or a call of a tool it knows whose input it cannot read (a
//     command without its command line): deny (fail closed: no answer makes the agent ask);
//     a tool it does not know (todo_write, web_search…) is asked, as kinds no rule names are.
//
// The client's own callbacks are its own: their requests pass unchanged.
const (
	HookMethod = "_x.ai/hooks/run"
	hooksMeta  = "x.ai/hooks"
	hookEvent  = "pre_tool_use"
	// hookCallbackID is the proxy's callback; a client that registers a callback of that
	// name itself makes it hookCallbackID#2, and so on.
	hookCallbackID = "acp-proxy.policy"
)

// grokToolKinds are the ACP kinds of grok-build's tools, as its own tool_call updates file
// them, by the tool's name in a hook request (which carries no kind): list_dir, which grok
// files under other, is a read of the directory it names.
var grokToolKinds = map[string]string{
	"run_terminal_command": "execute",
	"monitor":              "execute",
	"write":                "edit",
	"search_replace":       "edit",
	"read_file":            "read",
	"list_dir":             "read",
	"grep":                 "search",
}

// hooksAdvertised reports whether the agent said in initialize that it runs pre_tool_use
// hooks of the client.
func hooksAdvertised(m *filters.Message) bool {
	if m.Caps == nil {
		return false
	}
	a, ok := m.Caps.Agent()
	if !ok {
		return false
	}
	var events []string
	raw, _ := rawjson.Get(a.Raw, "_meta", hooksMeta, "blockingEvents")
	return json.Unmarshal(raw, &events) == nil && slices.Contains(events, hookEvent)
}

// registerHook adds the proxy's pre_tool_use callback to a session/new, session/load or
// session/resume of an agent that runs client hooks, keeping the client's own. A request it
// cannot add it to goes on unchanged: permission requests still bind.
func (f *Filter) registerHook(m *filters.Message, out filters.Emitter) error {
	params := m.Params()
	if f.DryRun || len(params) == 0 || params[0] != '{' || !hooksAdvertised(m) {
		return nil
	}
	hooks, _ := rawjson.Get(params, "_meta", hooksMeta)
	id := hookCallbackID
	for n := 2; bytes.Contains(hooks, rawjson.Quote(id)); n++ {
		id = fmt.Sprintf("%s#%d", hookCallbackID, n)
	}
	group := `{"matcher":"*","hookCallbackIds":[` + string(rawjson.Quote(id)) + `]}`
	groups := "[" + group + "]"
	if theirs, ok := rawjson.Get(hooks, hookEvent); ok {
		theirs = rawjson.TrimSpace(theirs)
		if len(theirs) < 2 || theirs[0] != '[' {
			return f.notRegistered(fmt.Errorf("the client's %s is not an array", hookEvent))
		}
		if len(rawjson.TrimSpace(theirs[1:len(theirs)-1])) > 0 { // theirs first, then the proxy's
			groups = string(theirs[:len(theirs)-1]) + "," + group + "]"
		}
	}
	raw, err := rawjson.Set(m.Raw, []byte(groups), "params", "_meta", hooksMeta, hookEvent)
	if err != nil {
		return f.notRegistered(err)
	}
	f.mu.Lock()
	if f.hookIDs == nil {
		f.hookIDs = map[string]bool{}
	}
	f.hookIDs[id] = true
	f.mu.Unlock()
	return out.Emit(m.Dir, raw)
}

func (f *Filter) notRegistered(err error) error {
	if f.Log != nil {
		f.Log.Warn("policy: no pre_tool_use hook registered with the agent", "err", err)
	}
	return nil
}

// hookRequest is what the policy reads of a HookMethod request.
type hookRequest struct {
	CallbackID string          `json:"hookCallbackId"`
	Event      string          `json:"hookEventName"`
	Cwd        string          `json:"cwd"`
	ToolName   string          `json:"toolName"`
	ToolUseID  string          `json:"toolUseId"`
	ToolInput  json.RawMessage `json:"toolInput"`
}

// ours reports whether a hook request is for the proxy's callback (in a dry run, which
// registers nothing, any callback of the proxy's name).
func (f *Filter) ours(callbackID string) bool {
	if f.DryRun {
		return callbackID == hookCallbackID || strings.HasPrefix(callbackID, hookCallbackID+"#")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hookIDs[callbackID]
}

// hook decides a HookMethod request for the proxy's callback; the client's pass unchanged.
func (f *Filter) hook(m *filters.Message, out filters.Emitter) error {
	var p hookRequest
	err := json.Unmarshal(m.Params(), &p)
	id, _ := rawjson.GetString(m.Params(), "hookCallbackId")
	if !f.ours(id) {
		return nil
	}
	ev := Event{Session: m.SessionID(), Where: "hook"}
	switch {
	case err != nil:
		ev.Decision = Decision{Action: Deny, Why: "the request cannot be read: " + err.Error()}
	case p.Event != hookEvent:
		ev.Decision = Decision{Action: Ask, Why: "not a pre_tool_use hook: " + p.Event}
	case p.ToolName == "" || len(p.ToolInput) == 0:
		ev.Decision = Decision{Action: Deny, Why: "the request names no tool or no input"}
	default:
		tc := &toolCall{ID: p.ToolUseID, Kind: grokToolKinds[p.ToolName], Title: p.ToolName, RawInput: p.ToolInput}
		cwd := sessionCwd(m)
		if cwd == "" && filepath.IsAbs(p.Cwd) {
			cwd = p.Cwd // a session the proxy did not see opened: the directory the agent runs it in
		}
		c := tc.call(agentName(m), cwd)
		if tc.Kind == "" && c.Tool == 0 {
			c.Unknown = "a tool the policy does not know: " + p.ToolName
		}
		d := f.decide(c, Deny)
		if d.Action == Ask && tc.Kind != "" && c.Unknown != "" {
			// a tool the policy knows, whose input it cannot read: in doubt, and the
			// agent cannot be made to ask
			d = Decision{Action: Deny, Why: "the call cannot be read: " + c.Unknown}
		}
		ev.ToolCall, ev.What, ev.Decision = tc.ID, describe(c), d
		if d.Action == Deny || d.Action == Stop {
			f.markAsked(m.SessionID(), tc) // refused before it runs: never marked as run without asking
		}
		if s := f.calls.Get(m.SessionID(), tc.ID); s != nil && d.Action == Stop && !f.DryRun {
			s.stopped = &d
		}
	}
	return f.hookAnswer(m, out, ev)
}

// hookAnswer answers the hook request m with ev's decision: deny and stop refuse the call
// (and stop cancels the turn), allow and ask take no decision.
func (f *Filter) hookAnswer(m *filters.Message, out filters.Emitter, ev Event) error {
	d := ev.Decision
	refuse := d.Action == Deny || d.Action == Stop
	ev.Bound = refuse && !f.DryRun
	f.record(m, ev)
	if f.DryRun {
		return nil
	}
	result := `{}`
	if refuse {
		why := "acp-proxy: denied by the policy: " + d.Why
		if d.Rule != nil {
			why = fmt.Sprintf("acp-proxy: denied by the policy (%s): %s", ruleText(d), d.Why)
		}
		result = `{"decision":"deny","reason":` + string(rawjson.Quote(why)) + `}`
	}
	if err := out.Emit(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID())+`,"result":`+result+`}`)); err != nil {
		return err
	}
	if err := f.cancelIf(m, out, d); err != nil {
		return err
	}
	return filters.Drop
}
