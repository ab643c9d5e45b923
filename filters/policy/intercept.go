package policy

import (
	"encoding/json"
	"fmt"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// The Tool Interception RFD's checkpoint (draft, agentclientprotocol.com/rfds/tool-interception):
// an agent that supports it sends, before it runs a tool call, the awaited request
// InterceptMethod with phase "before", and waits for allow, replace (do not run it; use the
// result given) or stop (stop the session's work). It sends it only to a client that advertises
// the phase in clientCapabilities._meta["agentclientprotocol.com"].toolInterception, and must not
// cross the checkpoint on a timeout, an error or an answer it cannot read.
//
// With a policy, the proxy advertises "before" to the agent and answers there itself:
//
//   - deny: replace, with a failed result naming the rule (the call never runs; the agent reports
//     it as it reports any result);
//   - stop: stop;
//   - allow, ask: allow, when the client does not intercept itself (ask: without the proxy there
//     would be no checkpoint here; the agent goes on as it would, asking permission where its
//     mode asks, which the policy decides again); forwarded unchanged to a client that
//     intercepts itself, which may still stop it (a policy never widens what the client allows);
//   - a request it cannot read, or a decision that fails: forwarded to a client that intercepts,
//     else answered with an error, which the agent must not cross (fail closed).
//
// The phase "after" is the client's: advertised only when the client advertises it, its requests
// go to the client unchanged.
const (
	InterceptMethod = "_agentclientprotocol.com/tool/intercept"
	interceptMeta   = "agentclientprotocol.com"
)

// phases are the checkpoints the client itself intercepts, as its initialize said.
type phases struct{ before, after bool }

// advertise adds the "before" checkpoint to the client's capabilities in initialize, and
// remembers what the client advertised itself. A request whose capabilities cannot be set goes on
// unchanged: the agent then never offers the checkpoint, and permission requests still bind.
func (f *Filter) advertise(m *filters.Message, out filters.Emitter) error {
	params := m.Params()
	if len(params) == 0 || params[0] != '{' {
		return nil
	}
	caps := "clientCapabilities"
	if v, _ := rawjson.Get(params, "protocolVersion"); string(v) != "1" {
		if _, v1 := rawjson.Get(params, caps); !v1 {
			caps = "capabilities" // ACP v2's name for them
		}
	}
	path := []string{"params", caps, "_meta", interceptMeta, "toolInterception"}
	var client phases
	if ti, ok := rawjson.Get(m.Raw, path...); ok {
		b, _ := rawjson.Get(ti, "before")
		a, _ := rawjson.Get(ti, "after")
		client = phases{before: string(b) == "true", after: string(a) == "true"}
	}
	f.mu.Lock()
	f.client = client
	f.mu.Unlock()
	if client.before || f.DryRun {
		return nil
	}
	raw, err := rawjson.Set(m.Raw, []byte("true"), append(path, "before")...)
	if err != nil {
		if f.Log != nil {
			f.Log.Warn("policy: the tool-interception checkpoint is not offered to the agent", "err", err)
		}
		return nil
	}
	return out.Emit(m.Dir, raw)
}

// clientPhases is what the client intercepts itself.
func (f *Filter) clientPhases() phases {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.client
}

// intercept decides an agent's tool/intercept request (see InterceptMethod).
func (f *Filter) intercept(m *filters.Message, out filters.Emitter) error {
	var p struct {
		Phase    string    `json:"phase"`
		ToolCall *toolCall `json:"toolCall"`
	}
	client := f.clientPhases()
	err := json.Unmarshal(m.Params(), &p)
	if err == nil && p.Phase != "before" {
		return nil // the client's checkpoint, or none the proxy knows
	}
	ev := Event{Session: m.SessionID(), Where: "intercept"}
	if err != nil || p.ToolCall == nil {
		why := "the request names no tool call"
		if err != nil {
			why = "the request cannot be read: " + err.Error()
		}
		ev.Decision = Decision{Action: Deny, Why: why}
		return f.interceptAnswer(m, out, ev, client.before)
	}
	tc := p.ToolCall
	f.known(m.SessionID(), tc)
	c := tc.call(agentName(m), sessionCwd(m))
	if tc.Kind == "" && c.Tool == 0 {
		c.Unknown = "the request names no kind of tool"
	}
	f.markAsked(m.SessionID(), tc) // decided before it runs: never marked as run without asking
	ev.ToolCall, ev.What, ev.Decision = tc.ID, describe(c), f.decide(c, Deny)
	return f.interceptAnswer(m, out, ev, client.before)
}

// known fills in what tc leaves out (its kind, its title) from the updates that announced it.
func (f *Filter) known(session string, tc *toolCall) {
	if s := f.calls.Get(session, tc.ID); s != nil && !s.ended {
		if tc.Kind == "" {
			tc.Kind = s.tc.Kind
		}
		if tc.Title == "" {
			tc.Title = s.tc.Title
		}
	}
}

// interceptAnswer binds ev's decision at the checkpoint: the proxy answers deny, stop and, when
// the client does not intercept itself, allow and ask; the rest goes to the client.
func (f *Filter) interceptAnswer(m *filters.Message, out filters.Emitter, ev Event, clientIntercepts bool) error {
	d := ev.Decision
	failed := d.Action == Deny && d.Rule == nil // the request cannot be read, or deciding failed
	forward := f.DryRun || clientIntercepts && (d.Action == Allow || d.Action == Ask || failed)
	ev.Bound = !forward && d.Action != Ask
	if forward {
		f.remember(m, pending{ev: ev})
		f.record(m, ev)
		return nil
	}
	f.record(m, ev)
	var result string
	switch {
	case failed: // an error, which the agent must not cross
		result = fmt.Sprintf(`"error":{"code":%d,"message":%s}`, deniedCode, rawjson.Quote("acp-proxy: the policy cannot decide this request: "+d.Why))
	case d.Action == Deny:
		text := fmt.Sprintf("acp-proxy: denied by the policy (%s): %s", ruleText(d), d.Why)
		result = `"result":{"action":"replace","result":{"status":"failed","content":[{"type":"content","content":{"type":"text","text":` +
			string(rawjson.Quote(text)) + `}}]}}`
	case d.Action == Stop:
		result = `"result":{"action":"stop"}`
	default:
		result = `"result":{"action":"allow"}`
	}
	if err := out.Emit(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID())+`,`+result+`}`)); err != nil {
		return err
	}
	return filters.Drop
}
