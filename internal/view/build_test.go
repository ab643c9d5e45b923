package view

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/filters/output"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
)

// traceOf makes a trace from (seconds, direction, line) triples; a line
// that is not JSON is recorded as "text".
func traceOf(recs ...any) string {
	var b strings.Builder
	for i := 0; i < len(recs); i += 3 {
		line := recs[i+2].(string)
		field := `"msg":` + line
		if !json.Valid([]byte(line)) {
			q, _ := json.Marshal(line)
			field = `"text":` + string(q)
		}
		fmt.Fprintf(&b, `{"t":%v,"dir":%q,%s}`+"\n", recs[i], recs[i+1], field)
	}
	return b.String()
}

const (
	c2a = "client->agent"
	a2c = "agent->client"
)

func update(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
}

// sampleSession is a small session with one of everything the page shows.
var sampleSession = traceOf(
	0.001, c2a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false},"terminal":false},"clientInfo":{"name":"editor","version":"2"}}}`,
	0.010, a2c, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"agent","version":"1"},"authMethods":[{"id":"key","name":"API key"}]}}`,
	0.020, c2a, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/project","mcpServers":[]}}`,
	0.030, a2c, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1"}}`,
	0.040, c2a, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"list files"}]}}`,
	0.050, a2c, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Sure, "}}`),
	0.051, a2c, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"listing."}}`),
	0.060, a2c, update(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls","kind":"execute","status":"pending","content":[{"type":"terminal","terminalId":"c1"}],"_meta":{"terminal_info":{"terminal_id":"c1"}}}`),
	0.070, a2c, `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"ls"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`,
	0.080, c2a, `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`,
	0.090, a2c, update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"in_progress","_meta":{"terminal_output":{"terminal_id":"c1","data":"a.txt\n"}}}`),
	0.100, a2c, update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"b.txt\n"}}}`),
	0.110, a2c, update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","_meta":{"terminal_exit":{"terminal_id":"c1","exit_code":0,"signal":null}}}`),
	0.120, a2c, update(`{"sessionUpdate":"tool_call","toolCallId":"c2","title":"Edit /project/a.txt","kind":"edit","status":"completed","locations":[{"path":"/project/a.txt","line":2}],"content":[{"type":"diff","path":"/project/a.txt","oldText":"one\ntwo\n","newText":"one\n2\n"}]}`),
	0.130, c2a, `{"jsonrpc":"2.0","id":4,"method":"x/unknown","params":{}}`,
	0.140, a2c, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`,
	0.150, a2c, `not json at all`,
	0.160, a2c, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}`),
	0.200, a2c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`,
)

func build(t *testing.T, trace string, fs ...filters.Filter) *Data {
	t.Helper()
	opt := Options{Name: "session.jsonl"}
	if len(fs) > 0 {
		opt.Chain = filters.NewChain(capabilities.New(), fs...)
	}
	d, err := Build(context.Background(), strings.NewReader(trace), opt)
	require.NoError(t, err)
	return d
}

// Without filters, the page's model is the session as it was received.
func TestBuildReadsTheSession(t *testing.T) {
	d := build(t, sampleSession)
	assert.Empty(t, d.Filters)
	assert.InDelta(t, 0.199, d.Duration, 1e-9)
	assert.Equal(t, []string{"s1"}, d.Session.SessionIDs)
	assert.Equal(t, "/project", d.Session.Cwd)
	assert.JSONEq(t, `{"name":"agent","version":"1"}`, string(d.Session.Agent))
	assert.JSONEq(t, `{"name":"editor","version":"2"}`, string(d.Session.Client))
	assert.Equal(t, []string{"API key"}, d.Session.AuthMethods)
	assert.Empty(t, d.Session.ClientCapabilities.Changed, "nothing injected without filters")
	assert.Equal(t, d.Directions[0].Before, d.Directions[0].After)
	assert.Equal(t, int64(5), d.Directions[0].Before.Messages)

	require.Len(t, d.Calls, 2)
	ls := d.Calls[0]
	assert.Equal(t, []string{"c1", "ls", "execute", "completed"}, []string{ls.ID, ls.Title, ls.Kind, ls.Status})
	assert.Equal(t, int64(4), ls.Before.Messages)
	assert.InDelta(t, 0.060, ls.Start, 1e-9)
	assert.InDelta(t, 0.110, ls.End, 1e-9)
	st := ls.Final.After
	require.Len(t, st.Terminals, 1)
	assert.Equal(t, "a.txt\nb.txt\n", st.Terminals[0].Output.Text, "terminal output appends")
	assert.Equal(t, "0", string(st.Terminals[0].ExitCode))
	assert.Equal(t, []Content{{Type: "terminal", TerminalID: "c1"}}, st.Content)

	edit := d.Calls[1].Final.After
	require.Len(t, edit.Content, 1)
	assert.Equal(t, "/project/a.txt", edit.Content[0].Path)
	assert.Equal(t, "one\ntwo\n", edit.Content[0].OldText.Text)
	assert.Equal(t, "one\n2\n", edit.Content[0].NewText.Text)
	assert.Equal(t, []string{"/project/a.txt:2"}, edit.Locations)

	var kinds []string
	for _, e := range d.Conversation {
		kinds = append(kinds, e.Kind)
	}
	assert.Equal(t, []string{"prompt", "agent", "permission", "error", "error", "agent", "stop"}, kinds)
	assert.Equal(t, "Sure, listing.", d.Conversation[1].Text.Text, "consecutive chunks are one message")
	perm := d.Conversation[2]
	assert.Equal(t, "c1", perm.Call)
	assert.Equal(t, []string{"Allow (allow_once)", "Reject (reject_once)"}, perm.Options)
	assert.Equal(t, "Allow (ok)", perm.Answer)
	assert.Equal(t, "error in answer to x/unknown", d.Conversation[3].Title)
	assert.Equal(t, "Done.", d.Conversation[5].Text.Text, "text after tool calls is a new message")
	assert.Equal(t, "end of turn: end_turn", d.Conversation[6].Title)

	assert.Len(t, d.Messages, 19)
	assert.Equal(t, "result of session/prompt", d.Messages[18].Label)
	assert.Equal(t, 0, d.Messages[10].Call, "an update points at its call")
	assert.Equal(t, 0, d.Messages[8].Call, "so does a permission request")
	assert.Equal(t, -1, d.Messages[9].Call)
}

// With filters, the page shows both sides: here --terminal-output asks the
// agent for streamed output on behalf of a client that lacks the extension,
// and shows that output to the client as text.
func TestBuildShowsBeforeAndAfterTheFilters(t *testing.T) {
	d := build(t, sampleSession, filterset.Config{TerminalOutput: true}.Filters()...)
	assert.Equal(t, []string{"--terminal-output", "--terminal-output (saved-output previews)"}, d.Filters, "named by the flag that turned each on")
	assert.Equal(t, []CapChange{{Path: "_meta.terminal_output", After: json.RawMessage("true")}}, d.Session.ClientCapabilities.Changed)
	assert.Greater(t, d.Directions[0].After.Bytes, d.Directions[0].Before.Bytes, "the capability was added")

	before, after := d.Calls[0].Final.Before, d.Calls[0].Final.After
	assert.Equal(t, "terminal", before.Content[0].Type, "the agent sent a terminal")
	var shown []string
	for _, c := range after.Content {
		if c.Text != nil {
			shown = append(shown, c.Text.Text)
		}
	}
	assert.Contains(t, strings.Join(shown, ""), "a.txt\nb.txt\n", "the client sees the output as text")
	var sides []string
	for _, m := range d.Messages {
		sides = append(sides, m.Side)
	}
	assert.Contains(t, sides, "a")
	assert.Contains(t, sides, "b")
}

// A malformed trace is an error naming its line, as for replay.
func TestBuildOfAMalformedTrace(t *testing.T) {
	bad := sampleSession + `{"t":1,"dir":"sideways","msg":{}}` + "\n"
	for _, chain := range []*filters.Chain{nil, filters.NewChain(capabilities.New(), &output.Deltas{})} {
		_, err := Build(context.Background(), strings.NewReader(bad), Options{Chain: chain})
		require.Error(t, err)
		assert.Equal(t, `trace line 20: "dir" must be "client->agent" or "agent->client", got "sideways"`, err.Error())
	}
}

// A trace recorded through filters, viewed without replaying it: what was
// delivered is the records' "out", including the lines the proxy added.
func TestBuildOfATraceRecordedThroughFilters(t *testing.T) {
	trace := sampleSession + `{"t":0.3,"dir":"agent->client","msg":` + update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"ls -l"}`) +
		`,"out":[` + update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"ls -la"}`) + `]}
{"t":0.4,"dir":"agent->client","out":[` + update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"}`) + `]}
`
	d := build(t, trace)
	assert.True(t, d.Recorded)
	assert.Empty(t, d.Filters)
	c := d.Calls[0]
	assert.Equal(t, "ls -l", c.Final.Before.Title, "as the agent sent it")
	assert.Equal(t, "ls -la", c.Final.After.Title, "as the client got it")
	assert.Equal(t, "completed", c.Final.Before.Status)
	assert.Equal(t, "failed", c.Final.After.Status, "a line the proxy added reaches the client only")
	assert.Equal(t, c.Before.Messages+1, c.After.Messages)

	assert.False(t, build(t, sampleSession).Recorded, "no out: nothing recorded through filters")
}

// An agent that writes its logs to stdout does not flood the conversation:
// the first lines that are not messages are shown there, all of them in the
// message list.
func TestBuildShowsTheFirstLinesThatAreNotMessages(t *testing.T) {
	var recs []any
	for i := range 1000 {
		recs = append(recs, float64(i)/1000, a2c, fmt.Sprintf("log line %d", i))
	}
	d := build(t, traceOf(recs...))
	assert.Len(t, d.Conversation, maxBadLineEvents)
	assert.Equal(t, "log line 0", d.Conversation[0].Text.Text)
	assert.Len(t, d.Messages, 1000)
}

// A long session's conversation stays small: past a budget, each entry is
// cut to its first and last lines.
func TestBuildBoundsTheConversation(t *testing.T) {
	long, _ := json.Marshal(strings.Repeat("a long line of agent text, repeated\n", 100)) // 3.6 KB
	var recs []any
	for i := range 2000 {
		recs = append(recs, float64(i), a2c, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":`+string(long)+`}}`),
			float64(i)+0.5, a2c, update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c%d","title":"t"}`, i)))
	}
	d := build(t, traceOf(recs...))
	require.Len(t, d.Conversation, 2000)
	total := 0
	for _, e := range d.Conversation {
		total += len(e.Text.Text) + len(e.Text.Tail)
		assert.Equal(t, int64(3600), e.Text.Bytes, "each entry says how long it was")
	}
	assert.Less(t, total, convBudget+2000*1300)
	cut := d.Conversation[1999].Text
	assert.True(t, strings.HasSuffix(cut.Tail, "a long line of agent text, repeated\n"), cut.Tail)
	assert.Equal(t, int64(94), cut.OmittedLines)
}

// A decision a filter took is in the conversation where it was taken, on
// its call: from the trace's "note" record as recorded, with or without
// lines the proxy added, and from the filters of a replay.
func TestBuildShowsTheDecisionsInTheConversation(t *testing.T) {
	note := `{"t":0.065,"dir":"agent->client","note":{"filter":"policy","event":"policy: ask (line 2) (not bound)","toolCallId":"c1","request":0,"detail":"ask (line 2: ask Bash(ls)): ls"}}` + "\n"
	at := strings.Index(sampleSession, `{"t":0.07,`)
	asked := sampleSession[:at] + note + sampleSession[at:]
	added := asked + `{"t":0.4,"dir":"agent->client","out":[` + update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"}`) + `]}` + "\n"
	noting := auditing{filters.Func{FilterName: "policy", Fn: func(m *filters.Message, _ filters.Emitter) error {
		if m.Method() == "session/request_permission" {
			m.Note(filters.Note{Filter: "policy", Event: "deny (line 1) by policy", ToolCallID: "c1", Audit: true})
		}
		return nil
	}}}
	for _, c := range []struct {
		name  string
		d     *Data
		title string
	}{
		{"recorded, nothing added", build(t, asked), "policy: policy: ask (line 2) (not bound)"},
		{"recorded, lines added", build(t, added), "policy: policy: ask (line 2) (not bound)"},
		{"replayed", build(t, sampleSession, noting), "policy: deny (line 1) by policy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var kinds []string
			for _, e := range c.d.Conversation {
				kinds = append(kinds, e.Kind)
				if e.Kind == "note" {
					assert.Equal(t, c.title, e.Title)
					assert.Equal(t, "c1", e.Call)
				}
			}
			assert.Equal(t, []string{"prompt", "agent", "note", "permission"}, kinds[:4])
		})
	}
}

// auditing is a filter whose decisions a record keeps (filters.Auditor).
type auditing struct{ filters.Func }

func (auditing) Audits() bool { return true }
