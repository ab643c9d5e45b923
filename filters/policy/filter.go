package policy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// Name is the filter's name, in logs and notes; its flag is --policy.
const Name = "policy"

// Filter applies a Policy where its decisions bind (see the package doc).
type Filter struct {
	Policy *Policy
	// DryRun decides and reports every call but changes no message: `policy check`.
	DryRun bool
	// OnDecision is told of each decision, and of the user's answer to a request the policy
	// asked about (Event.User); nil: nobody. It runs on the pump of the message.
	OnDecision func(Event)
	Log        *slog.Logger // nil: no logs

	calls toolcall.List[callState] // agent→client pump only
	// asked are the permission requests the user answers, by JSON-RPC id: the user's answer
	// arrives on the other pump.
	mu     sync.Mutex
	asked  map[string]pending
	order  []string
	client phases // the tool-interception checkpoints the client advertised itself
	// hookIDs are the callbacks the proxy registered with the agent's hooks (HookMethod).
	hookIDs map[string]bool

	counts [len(places)][Stop + 1]atomic.Int64 // decisions, by place and action, for --stats
}

// places are where decisions are taken (Event.Where), in the order --stats lists them.
var places = [...]string{"permission", "intercept", "hook", "fs/write_text_file", "fs/read_text_file", "terminal/create", "unasked"}

// Counts are the decisions taken, for --stats and replay --summary: "permission deny" is how
// many permission requests the policy denied.
func (f *Filter) Counts() map[string]int64 {
	out := map[string]int64{}
	for i, place := range places {
		for a := Ask; a <= Stop; a++ {
			if n := f.counts[i][a].Load(); n > 0 {
				out[place+" "+a.String()] = n
			}
		}
	}
	return out
}

// pending is a permission request the policy let through, until the user answers it.
type pending struct {
	ev    Event
	kinds map[string]string // the kind of each option, by optionId
}

var (
	_ filters.Filter    = (*Filter)(nil)
	_ filters.KnowsV2   = (*Filter)(nil)
	_ filters.Counted   = (*Filter)(nil)
	_ filters.Explained = (*Filter)(nil)
	_ filters.Auditor   = (*Filter)(nil)
)

// Event is one decision, for the audit and for `policy check`.
type Event struct {
	Time              time.Time
	Session, ToolCall string
	// Where is where the decision was taken: "permission" (session/request_permission),
	// "intercept" (the tool-interception checkpoint, InterceptMethod), "hook" (grok-build's
	// pre-tool hook, HookMethod), a client method
	// (fs/write_text_file, fs/read_text_file, terminal/create), or "unasked" (a call the agent
	// ran without asking).
	Where    string
	What     string // the command, or the files, as the call named them
	Decision Decision
	// Bound says whether the decision changed what happened (false: asked, a dry run, or a
	// call that had already run).
	Bound bool
	// User is the user's answer to a request the policy let through: the kind of the option
	// chosen (allow_once, reject_once…), "cancelled", or an error's message; "" for events that
	// are not answers.
	User string
}

// callState is what the filter keeps of a tool call between its messages.
type callState struct {
	asked     bool   // a permission request named it: the user or the policy decided
	input     string // the rawInput last decided on
	locations string // and the locations
	decision  Decision
	tc        toolCall
	ended     bool // its final update passed: an id used again is another call
	shown     bool // an update of it reached the client: the client knows the call
	// stopped is the stop decision taken at grok-build's hook, until the call's first update
	// passes: the agent, cancelled, may never end the call itself.
	stopped *Decision
}

// maxAsked bounds the permission requests awaiting the user's answer that are remembered.
const maxAsked = 1024

func (f *Filter) Name() string { return Name }

// Audits: every decision is a note a record of the session keeps (filters.Note.Audit).
func (f *Filter) Audits() bool { return true }

// Flag is the flag that turns the filter on, for summaries.
func (f *Filter) Flag() string { return "--policy" }

// Explain has nothing to add to the decisions' counts (Counts).
func (f *Filter) Explain(acp.Direction, bool, *capabilities.Negotiated) string { return "" }

// KnowsV2: a v2 permission request has the same options and answer; its call is under subject.
func (f *Filter) KnowsV2() bool { return true }

// Apply decides the requests and calls of the agent, and reads the user's answers.
func (f *Filter) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir == acp.ClientToAgent {
		switch {
		case m.IsResponse():
			f.answered(m)
		case m.Method() == "initialize" && m.IsRequest():
			return f.advertise(m, out)
		case m.IsRequest() && (m.Method() == "session/new" || m.Method() == "session/load" || m.Method() == "session/resume"):
			return f.registerHook(m, out)
		}
		return nil
	}
	switch m.Method() {
	case InterceptMethod:
		if m.IsRequest() {
			return f.intercept(m, out)
		}
	case HookMethod:
		if m.IsRequest() {
			return f.hook(m, out)
		}
	case "session/request_permission":
		if m.IsRequest() {
			return f.permission(m, out)
		}
	case "fs/write_text_file", "fs/read_text_file", "terminal/create":
		if m.IsRequest() {
			return f.clientRequest(m, out)
		}
	case "session/update":
		return f.update(m, out)
	}
	return nil
}

// agentName is the agent's name, as initialize said it.
func agentName(m *filters.Message) string {
	if m.Caps == nil {
		return ""
	}
	a, _ := m.Caps.Agent()
	return a.Name
}

// sessionCwd is the directory of m's session.
func sessionCwd(m *filters.Message) string {
	if m.Caps == nil {
		return ""
	}
	return m.Caps.Cwd(m.SessionID())
}

// record tells OnDecision, the log and the chain's notes of ev.
func (f *Filter) record(m *filters.Message, ev Event) {
	ev.Time = m.Time
	if ev.User == "" { // an answer is the same decision again
		for i, place := range places {
			if place == ev.Where {
				f.counts[i][ev.Decision.Action].Add(1)
			}
		}
	}
	if f.OnDecision != nil {
		f.OnDecision(ev)
	}
	if f.Log != nil {
		f.Log.Info("policy", "where", ev.Where, "sessionId", ev.Session, "toolCallId", ev.ToolCall,
			"decision", ev.Decision.Action.String(), "rule", ruleText(ev.Decision), "why", ev.Decision.Why, "bound", ev.Bound)
	}
	if m.Noting() {
		n := filters.Note{Filter: Name, Event: noteEvent(ev), SessionID: ev.Session, ToolCallID: ev.ToolCall,
			Detail: ev.Decision.String(), Audit: true}
		if m.IsRequest() || m.IsResponse() { // the request decided, or the user's answer to it
			n.RequestID = string(m.ID())
		}
		m.Note(n)
	}
}

// noteEvent names what happened in a few words, as notes do ("deny (line 2) by policy",
// "ran without asking; policy: deny (line 2)"): the rule's line, never its text, which may name
// commands and files (Detail has it).
func noteEvent(ev Event) string {
	act := ev.Decision.Action.String()
	if r := ev.Decision.Rule; r != nil {
		act += fmt.Sprintf(" (line %d)", r.Line)
	}
	switch {
	case ev.Where == "unasked":
		return "ran without asking; policy: " + act
	case ev.User != "":
		return "user answered " + ev.User + "; policy: " + act
	case ev.Bound:
		return act + " by policy"
	}
	return "policy: " + act + " (not bound)"
}

// ruleText quotes the rule of d, or says there is none.
func ruleText(d Decision) string {
	if d.Rule == nil {
		return ""
	}
	return fmt.Sprintf("line %d: %s", d.Rule.Line, d.Rule.Text)
}

// permission decides a session/request_permission: allow and deny are answered to the agent
// with its own allow-once or reject-once option, and the request does not reach the user; ask
// forwards it unchanged.
func (f *Filter) permission(m *filters.Message, out filters.Emitter) error {
	tc, options, err := readPermission(m)
	if err != nil {
		return err // forwarded unchanged: the user decides
	}
	c := tc.call(agentName(m), sessionCwd(m))
	if tc.Kind == "" {
		c.Unknown = "the request names no kind of tool"
	}
	d := f.decide(c, Ask) // a failure asks the user, as a request the policy cannot read does
	shown := f.markAsked(m.SessionID(), tc)
	ev := Event{Session: m.SessionID(), ToolCall: tc.ID, Where: "permission", What: describe(c), Decision: d}
	want := map[Action]string{Allow: "allow_once", Deny: "reject_once", Stop: "reject_once"}[d.Action]
	option := ""
	for _, o := range options {
		if o.Kind == want && option == "" {
			option = o.OptionID
		}
	}
	if option == "" && d.Action == Allow {
		// never an "always" option: the agent would remember a rule of its own
		d.Action, d.Why = Ask, "the request has no allow-once option; "+d.Why
		ev.Decision = d
	}
	if f.DryRun || d.Action == Ask {
		kinds := map[string]string{}
		for _, o := range options {
			kinds[o.OptionID] = o.Kind
		}
		f.remember(m, pending{ev, kinds})
		f.record(m, ev)
		return nil
	}
	ev.Bound = true
	f.record(m, ev)
	outcome := `{"outcome":"cancelled"}` // no reject option: cancelled is every agent's no
	if option != "" {
		outcome = `{"outcome":"selected","optionId":` + string(rawjson.Quote(option)) + `}`
	}
	answer := `{"jsonrpc":"2.0","id":` + string(m.ID()) + `,"result":{"outcome":` + outcome + `}}`
	if err := out.Emit(acp.ClientToAgent, []byte(answer)); err != nil {
		return err
	}
	if d.Action != Allow {
		if err := f.tell(m, out, tc, shown, d); err != nil {
			return err
		}
	}
	if err := f.cancelIf(m, out, d); err != nil {
		return err
	}
	return filters.Drop // answered: the user is not asked
}

// option is one of a permission request's options.
type option struct {
	OptionID string `json:"optionId"`
	Kind     string `json:"kind"`
}

// readPermission reads the call and options of a permission request: v1 names the call
// toolCall, v2 subject.toolCall.
func readPermission(m *filters.Message) (*toolCall, []option, error) {
	var params struct {
		ToolCall *toolCall `json:"toolCall"`
		Subject  struct {
			ToolCall *toolCall `json:"toolCall"`
		} `json:"subject"`
		Options []option `json:"options"`
	}
	if err := json.Unmarshal(m.Params(), &params); err != nil {
		return nil, nil, fmt.Errorf("permission request: %w", err)
	}
	tc := params.ToolCall
	if tc == nil {
		tc = params.Subject.ToolCall
	}
	if tc == nil {
		tc = &toolCall{}
	}
	return tc, params.Options, nil
}

// markAsked records that a permission request named the call tc, and reports whether the client
// has been shown the call (agents may ask before they announce it: codex-acp 0.16).
func (f *Filter) markAsked(session string, tc *toolCall) (shown bool) {
	if tc.ID == "" {
		return false
	}
	s := f.calls.Get(session, tc.ID)
	switch {
	case s == nil:
		s = &callState{}
		f.calls.Add(session, tc.ID, s)
	case s.ended: // agents that number calls per turn use an id again
		*s = callState{}
	}
	s.asked = true
	return s.shown
}

// remember keeps p until the user answers the request m.
func (f *Filter) remember(m *filters.Message, p pending) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.asked == nil {
		f.asked = map[string]pending{}
	}
	id := string(m.ID())
	if _, ok := f.asked[id]; !ok {
		f.order = append(f.order, id)
	}
	f.asked[id] = p
	for len(f.order) > maxAsked {
		delete(f.asked, f.order[0])
		f.order = f.order[1:]
	}
}

// answered reads the user's answer to a request the policy let through.
func (f *Filter) answered(m *filters.Message) {
	f.mu.Lock()
	p, ok := f.asked[string(m.ID())]
	if ok {
		delete(f.asked, string(m.ID()))
	}
	f.mu.Unlock()
	if !ok {
		return
	}
	ev := p.ev
	ev.User = userAnswer(m, p.kinds)
	f.record(m, ev)
}
