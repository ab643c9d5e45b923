package output

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file has the harness and one-line message builders the output
// filters' tests share (termoutput, deltas, persisted).

// Clients, as their clientCapabilities.
const (
	plainClient = `{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}`
	zedClient   = `{"fs":{"readTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}}`
	deltaClient = `{"_meta":{"terminal_output_delta":true}}`
)

// Agents, as the agentInfo name they answer initialize with.
const (
	codexAgent  = "codex-acp"
	claudeAgent = "@zed-industries/claude-agent-acp"
)

// t0 is the fake clock's start.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// harness runs messages through a real filters.Chain with the relay's
// driver on a fake clock: each line is processed at the clock's time, and
// what the filters hold is released at the times they ask for as the clock
// moves on.
type harness struct {
	t      testing.TB
	chain  *filters.Chain
	clock  *filters.ManualClock
	driver *filters.Driver
	out    []string // agent→client lines, in order
	orig   []bool   // whether each was forwarded byte for byte
	toAg   []string // client→agent lines
	errs   []string // filter failures
}

// newHarness starts a connection: the client's initialize with caps, and
// the agent's answer naming agent. What they produce is discarded.
func newHarness(t testing.TB, caps, agent string, fs ...filters.Filter) *harness {
	return newHarnessInit(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":`+caps+`}}`, agent, fs...)
}

// newHarnessInit is newHarness with the client's initialize request.
func newHarnessInit(t testing.TB, initialize, agent string, fs ...filters.Filter) *harness {
	h := newBareHarness(t, filters.NewChain(capabilities.New(), fs...))
	h.client(initialize)
	h.agent(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"` + agent + `","version":"1"}}}`)
	h.client(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`)
	h.take()
	h.toAg = nil
	return h
}

// newBareHarness runs chain from the start of a connection, at t0.
func newBareHarness(t testing.TB, chain *filters.Chain) *harness {
	h := &harness{t: t, chain: chain, clock: filters.NewManualClock(t0)}
	h.driver = filters.NewDriver(h.chain, h.clock, h.sink)
	h.chain.OnError = func(d acp.Direction, f string, err error) { h.errs = append(h.errs, f+": "+err.Error()) }
	return h
}

func (h *harness) sink(l filters.Line) error {
	if l.Dir == acp.AgentToClient {
		h.out = append(h.out, string(l.Raw))
		h.orig = append(h.orig, l.Original)
	} else {
		h.toAg = append(h.toAg, string(l.Raw))
	}
	return nil
}

func (h *harness) process(d acp.Direction, line string) {
	h.t.Helper()
	m := filters.NewMessage(d, []byte(line), h.clock.Now(), nil)
	require.NoError(h.t, h.driver.Process(m, h.sink), "Process")
	require.NoError(h.t, h.driver.Tick(d), "Tick")
}

func (h *harness) agent(line string)  { h.process(acp.AgentToClient, line) }
func (h *harness) client(line string) { h.process(acp.ClientToAgent, line) }

// advance moves the clock by d, releasing on the way what the filters
// hold at the times they asked for, as the relay's timers do.
func (h *harness) advance(d time.Duration) {
	h.t.Helper()
	require.NoError(h.t, h.clock.Advance(h.clock.Now().Add(d)), "a timed release")
}

// drain sends everything the chain holds, as the relay does when the
// agent's output ends.
func (h *harness) drain() {
	h.t.Helper()
	require.NoError(h.t, h.driver.Drain(acp.AgentToClient), "Drain")
}

// take returns the agent→client lines so far and forgets them.
func (h *harness) take() []string {
	out := h.out
	h.out, h.orig = nil, nil
	return out
}

// step is one row element of a scenario: a message from a side, or time
// passing.
type step struct {
	dir  acp.Direction
	line string
	wait time.Duration
}

func fromAgent(line string) step { return step{dir: acp.AgentToClient, line: line} }
func after(d time.Duration) step { return step{wait: d} }
func (h *harness) run(steps ...step) {
	h.t.Helper()
	for _, s := range steps {
		switch {
		case s.wait > 0:
			h.advance(s.wait)
		case s.dir == acp.AgentToClient:
			h.agent(s.line)
		default:
			h.client(s.line)
		}
	}
}

// q quotes s as a JSON string.
func q(s string) string { return string(rawjson.Quote(s)) }

// update is a session/update of session s1 with the update's members.
func update(members string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{` + members + `}}}`
}

// upd is a tool_call_update of call id with more members.
func upd(id, members string) string {
	return update(`"sessionUpdate":"tool_call_update","toolCallId":"` + id + `",` + members)
}

// termCallMsg is codex's tool_call with the extension on.
func termCallMsg(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"seq 3","kind":"execute","status":"in_progress","content":[{"type":"terminal","terminalId":"` + id + `"}],"_meta":{"terminal_info":{"terminal_id":"` + id + `","cwd":"/p"}}`)
}

// plainCallMsg is the same call as the client sees it translated.
func plainCallMsg(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"seq 3","kind":"execute","status":"in_progress","content":[]`)
}

// execCall is codex's tool_call without the extension.
func execCall(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"seq 3","kind":"execute","status":"in_progress"`)
}

// out is an update streaming data (_meta.terminal_output).
func out(id, data string) string {
	return upd(id, `"_meta":{"terminal_output":{"terminal_id":"`+id+`","data":`+q(data)+`}}`)
}

// delta is what deltas makes of a snapshot for a client with the extension.
func delta(id, data string) string { return out(id, data) }

// shFence is codex-acp's fence around output.
func shFence(output string) string { return "```sh\n" + strings.TrimRight(output, "\n") + "\n```\n" }

// textContent is a content array of one text item.
func textContent(text string) string {
	return `[{"type":"content","content":{"type":"text","text":` + q(text) + `}}]`
}

// snap is codex ≤0.13's snapshot update; shown is the same shape, which is
// what a client without the extension is sent.
func snap(id, output string) string  { return upd(id, `"content":`+textContent(shFence(output))) }
func shown(id, output string) string { return snap(id, output) }

// codexEnd is codex's final update; rawOutput has the output.
func codexEnd(id, status, output string, exit int) string {
	raw := `{"stdout":` + q(output) + `,"stderr":"","aggregated_output":` + q(output) + `,"exit_code":` + itoa(exit) + `,"formatted_output":"(cut)"}`
	return upd(id, `"status":`+q(status)+`,"rawOutput":`+raw+`,"_meta":{"terminal_exit":{"terminal_id":"`+id+`","exit_code":`+itoa(exit)+`,"signal":null}}`)
}

// codexEndPlain is the same final update without the extension.
func codexEndPlain(id, status, output string, exit int) string {
	raw := `{"stdout":` + q(output) + `,"stderr":"","aggregated_output":` + q(output) + `,"exit_code":` + itoa(exit) + `,"formatted_output":"(cut)"}`
	return upd(id, `"status":`+q(status)+`,"rawOutput":`+raw)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// promptDone is the agent's answer to the harness's session/prompt.
const promptDone = `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`

// chunk is an agent message chunk, which no output filter touches.
const chunk = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi <b>&"}}}}`

// seen is what a client shows for each tool call after the lines: content
// replaces content; terminal items show what terminal_output(_delta)
// appended. It fails the test on lines a client could not read.
func seen(t testing.TB, lines []string) map[string]string {
	t.Helper()
	type call struct {
		items []json.RawMessage
		term  map[string]string
	}
	calls := map[string]*call{}
	for _, l := range lines {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Update map[string]json.RawMessage `json:"update"`
			} `json:"params"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &msg), "client cannot read %s", l)
		u := msg.Params.Update
		var id string
		if msg.Method != "session/update" || json.Unmarshal(u["toolCallId"], &id) != nil {
			continue
		}
		c := calls[id]
		var kind string
		_ = json.Unmarshal(u["sessionUpdate"], &kind)
		if c == nil || kind == "tool_call" { // a tool_call starts the call anew, even with an id seen before
			c = &call{term: map[string]string{}}
			calls[id] = c
		}
		if raw, ok := u["content"]; ok {
			c.items = nil
			_ = json.Unmarshal(raw, &c.items)
		}
		var meta map[string]struct {
			TerminalID string `json:"terminal_id"`
			Data       string `json:"data"`
		}
		_ = json.Unmarshal(u["_meta"], &meta)
		if v, ok := meta["terminal_info"]; ok {
			c.term[v.TerminalID] = "" // a new display terminal, as Zed opens one
		}
		for _, k := range []string{"terminal_output", "terminal_output_delta"} {
			if v, ok := meta[k]; ok {
				c.term[v.TerminalID] += v.Data
			}
		}
	}
	view := map[string]string{}
	for id, c := range calls {
		var b strings.Builder
		for _, it := range c.items {
			var item struct {
				Type       string `json:"type"`
				TerminalID string `json:"terminalId"`
				Content    struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			_ = json.Unmarshal(it, &item)
			switch item.Type {
			case "terminal":
				b.WriteString(c.term[item.TerminalID])
			case "content":
				b.WriteString(item.Content.Text)
			}
		}
		view[id] = b.String()
	}
	return view
}

// sameText fails the test when got is not want, showing where they part
// rather than all of two long texts.
func sameText(t testing.TB, want, got string) {
	t.Helper()
	if want == got {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-60)
	assert.Fail(t, "texts differ", "texts differ at byte %d (want %d bytes, got %d):\nwant …%q…\ngot  …%q…",
		i, len(want), len(got), want[from:min(len(want), i+60)], got[from:min(len(got), i+60)])
}
