package trace

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// auditing is a filter whose decisions a record keeps (filters.Auditor).
type auditing struct{ filters.Func }

func (auditing) Audits() bool { return true }

// decidingFilter notes a decision on each agent→client line and changes no
// message, as a policy that asks does; a second note is not one a trace
// keeps.
func decidingFilter() filters.Filter { return auditing{notingFilter()} }

// notingFilter is decidingFilter without saying it audits.
func notingFilter() filters.Func {
	return filters.Func{FilterName: "policy", Fn: func(m *filters.Message, _ filters.Emitter) error {
		if m.Dir != acp.AgentToClient {
			return nil
		}
		m.Note(filters.Note{Filter: "policy", Event: "policy: ask (line 3) (not bound)", SessionID: "s1",
			ToolCallID: "c1", RequestID: string(m.ID()), Detail: "ask (line 3: ask Bash(git:*)): git status", Audit: true})
		m.Note(filters.Note{Filter: "shell-to-patch", Event: "edit shown", Files: 1})
		return nil
	}}
}

const askedLine = `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s1"}}`

// A decision that changes no message is in the trace, before the message
// it was taken on; the trace reads back with it, and notes that are not
// decisions are not recorded.
func TestTheTraceKeepsDecisionsThatChangeNoMessage(t *testing.T) {
	var tr bytes.Buffer
	rec := NewRecorder(&tr, time.Now())
	chain := filters.NewChain(capabilities.New(), decidingFilter())
	chain.ListenNotes(rec.Note)
	r := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{rec}}
	got := relayOnce(t, r, acp.AgentToClient, strings.NewReader(askedLine+"\n"))
	require.NoError(t, rec.Flush())
	assert.Equal(t, askedLine+"\n", string(got), "the message is untouched")

	lines := strings.Split(strings.TrimSpace(tr.String()), "\n")
	require.Len(t, lines, 2, tr.String())
	assert.Contains(t, lines[0], `"dir":"agent->client","note":{"filter":"policy","event":"policy: ask (line 3) (not bound)","sessionId":"s1","toolCallId":"c1","request":7,"detail":"ask (line 3: ask Bash(git:*)): git status"}}`)
	assert.Contains(t, lines[1], `"msg":`+askedLine)

	var recs []Record
	for r, err := range NewReader(&tr).All() {
		require.NoError(t, err)
		recs = append(recs, r)
	}
	require.Len(t, recs, 2)
	n := recs[0].Note
	require.NotNil(t, n)
	assert.False(t, recs[0].HasLine)
	assert.Equal(t, acp.AgentToClient, recs[0].Dir)
	assert.Equal(t, filters.Note{Filter: "policy", Event: "policy: ask (line 3) (not bound)", SessionID: "s1", ToolCallID: "c1",
		RequestID: "7", Detail: "ask (line 3: ask Bash(git:*)): git status", Audit: true}, *n)
}

// A replay writes the decisions of its own chain into its output, where a
// reader finds them again; the recording's notes are the recording's and
// are not copied (the replay's chain takes its own).
func TestAReplayWritesItsChainsDecisions(t *testing.T) {
	recorded := `{"t":0.5,"dir":"agent->client","note":{"filter":"policy","event":"deny (line 1) by policy"}}` + "\n" +
		`{"t":0.5,"dir":"agent->client","msg":` + askedLine + "}\n"
	for name, c := range map[string]struct {
		chain *filters.Chain
		want  []string
	}{
		"without filters": {nil, nil},
		"with the filter": {filters.NewChain(capabilities.New(), decidingFilter()), []string{"policy: ask (line 3) (not bound)"}},
		// nobody listens to the notes of a chain that audits nothing: no filter works to make them
		"a chain that audits nothing": {filters.NewChain(capabilities.New(), notingFilter()), nil},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, replayInto(c.chain, strings.NewReader(recorded), &out))
			var notes []string
			for r, err := range NewReader(&out).All() {
				require.NoError(t, err)
				if r.Note != nil {
					notes = append(notes, r.Note.Event)
					assert.Equal(t, 500*time.Millisecond, r.T)
				}
			}
			assert.Equal(t, c.want, notes)
		})
	}
}

// A note record is malformed without its filter and event, and read with
// fields it does not know; a record of none of the kinds is still refused.
func TestNoteRecordsAreChecked(t *testing.T) {
	for _, c := range []struct{ rec, err string }{
		{`{"t":1,"dir":"agent->client","note":{"event":"x"}}`, `"note" must name its "filter" and "event"`},
		{`{"t":1,"dir":"agent->client","note":{"filter":"policy","event":"x","files":"two"}}`, `"note" must be an object`},
		{`{"t":1,"dir":"agent->client","note":[]}`, `"note" must be an object`},
		{`{"t":1,"dir":"agent->client","note":{"filter":"policy","event":"x","later":{"a":1}}}`, ``},
		{`{"t":1,"dir":"agent->client"}`, `record has none of "msg", "text", "b64", "out", "read" or "note"`},
	} {
		_, err := NewReader(strings.NewReader(c.rec)).Next()
		if c.err == "" {
			assert.NoError(t, err, c.rec)
		} else {
			assert.ErrorContains(t, err, c.err, c.rec)
		}
	}
}

// Redacted, a note keeps what it is (filter, event, ids, request, files)
// and loses its detail, which names commands and files.
func TestRedactKeepsANotesEventNotItsDetail(t *testing.T) {
	in := `{"t":0.5,"dir":"agent->client","note":{"filter":"policy","event":"deny (line 2) by policy","sessionId":"s1","toolCallId":"c1","request":"r-7","files":2,"detail":"deny (line 2: Bash(git push:*)): git push"}}` + "\n"
	var out bytes.Buffer
	require.NoError(t, Redact(NewReader(strings.NewReader(in)), &out))
	assert.Equal(t, `{"t":0.500000,"dir":"agent->client","note":{"filter":"policy","event":"deny (line 2) by policy","sessionId":"s1","toolCallId":"c1","request":"r-7","files":2,"detail":"xxxx xxxxx xx xxxxxxxx xxxxxxxxx xxx xxxx"}}`+"\n", out.String())
}
