package proxy

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// rewritesTools rewrites every line about a tool call and skips the rest.
type rewritesTools struct{ applied []string }

func (*rewritesTools) Name() string                { return "rewrites-tools" }
func (*rewritesTools) Skips(g filters.Glance) bool { return !g.Tool }
func (f *rewritesTools) Apply(m *filters.Message, out filters.Emitter) error {
	f.applied = append(f.applied, string(m.Raw))
	if m.Dir == acp.AgentToClient && strings.Contains(string(m.Raw), `"tool`) {
		return out.Emit(m.Dir, []byte(`{"jsonrpc":"2.0","method":"rewritten"}`))
	}
	return nil
}

// A line every filter skips is written as it was read, and no filter is
// called for it; the others go through the chain, in order.
func TestALineEveryFilterSkipsIsWrittenAsRead(t *testing.T) {
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`
	tool := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}`
	f := &rewritesTools{}
	relay := &Relay{Chain: filters.NewChain(capabilities.New(), f)}
	var toClient bytes.Buffer
	conn := relay.Open(&bytes.Buffer{}, &toClient)
	require.NoError(t, conn.Pump(acp.AgentToClient, strings.NewReader(chunk+"\n"+tool+"\n"+chunk+"  \n")))
	assert.Equal(t, chunk+"\n"+`{"jsonrpc":"2.0","method":"rewritten"}`+"\n"+chunk+"  \n", toClient.String())
	assert.Equal(t, []string{tool}, f.applied)
}

// holdsTools holds each line about a tool call and sends it before the
// next line it is given (as the coalescing filters send what they queued),
// and skips a line only while it holds nothing.
type holdsTools struct{ held []byte }

func (*holdsTools) Name() string                  { return "holds-tools" }
func (f *holdsTools) Skips(g filters.Glance) bool { return !g.Tool && f.held == nil }
func (f *holdsTools) Apply(m *filters.Message, out filters.Emitter) error {
	if f.held != nil {
		if err := out.Emit(m.Dir, f.held); err != nil {
			return err
		}
		f.held = nil
	}
	if strings.Contains(string(m.Raw), `"tool`) {
		f.held = append([]byte(nil), m.Raw...)
		return filters.Drop
	}
	return out.Emit(m.Dir, m.Raw)
}

// Lines every filter skips that arrive together leave together, in one
// write; a line a filter holds is never overtaken by them: the skipped lines
// before it leave before it, those after it only once the filter has let it
// go. The taps are told of each line, in order, as it was written.
func TestARunOfSkippedLinesNeverOvertakesAHeldLine(t *testing.T) {
	chunk := func(text string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
	}
	tool := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}`
	in := []string{chunk("a"), chunk("b"), tool, chunk("c"), chunk("d"), tool, chunk("e")}
	want := []string{chunk("a"), chunk("b"), tool, chunk("c"), chunk("d"), tool, chunk("e")}
	tap := &eventTap{}
	relay := &Relay{Chain: filters.NewChain(capabilities.New(), &holdsTools{}), Taps: []Tap{tap}}
	var toClient bytes.Buffer
	conn := relay.Open(&bytes.Buffer{}, &toClient)
	// One read brings every line: the lines skipped together are written
	// together.
	require.NoError(t, conn.Pump(acp.AgentToClient, strings.NewReader(strings.Join(in, "\n")+"\n")))
	assert.Equal(t, strings.Join(want, "\n")+"\n", toClient.String())
	var passed []string
	for _, e := range tap.events {
		if strings.HasPrefix(e, "passed ") {
			passed = append(passed, e)
		}
	}
	wantPassed := []string{
		"passed agent->client " + chunk("a") + " eol=true changed=false -> [=]",
		"passed agent->client " + chunk("b") + " eol=true changed=false -> [=]",
		"passed agent->client " + tool + " eol=true changed=true -> []",
		"passed agent->client " + chunk("c") + " eol=true changed=true -> [" + tool + " =]",
		"passed agent->client " + chunk("d") + " eol=true changed=false -> [=]",
		"passed agent->client " + tool + " eol=true changed=true -> []",
		"passed agent->client " + chunk("e") + " eol=true changed=true -> [" + tool + " =]",
	}
	assert.Equal(t, wantPassed, passed)
}

// timesTools keeps the time of each line it reads, and skips every line
// about no tool call.
type timesTools struct{ times []time.Time }

func (*timesTools) Name() string                { return "times-tools" }
func (*timesTools) Skips(g filters.Glance) bool { return !g.Tool }
func (f *timesTools) Apply(m *filters.Message, _ filters.Emitter) error {
	f.times = append(f.times, m.Time)
	return nil
}

// The clock is read once per read of the source, and only when a line
// needs the time: lines that skip the chain, with no tap to tell, need
// none; a line the chain reads has the time of the read that brought it.
func TestTheClockIsReadForTheLinesThatNeedTheTime(t *testing.T) {
	plan := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}}` + "\n"
	tool := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1"}}}` + "\n"
	for _, c := range []struct {
		reads  []string
		clocks int64 // reads of the clock for lines
		times  []int64
	}{
		{[]string{plan + plan, plan}, 0, nil},
		{[]string{plan, plan + tool + plan + tool, plan, tool}, 2, []int64{1, 1, 2}},
	} {
		var now int64
		f := &timesTools{}
		relay := &Relay{Chain: filters.NewChain(capabilities.New(), f), Now: func() time.Time { now++; return time.Unix(now, 0) }}
		var out bytes.Buffer
		in := strings.Join(c.reads, "")
		require.NoError(t, relay.Open(io.Discard, &out).Pump(acp.AgentToClient, &piecesReader{pieces: c.reads}))
		assert.Equal(t, in, out.String())
		if c.clocks == 0 {
			assert.Equal(t, int64(1), now, "the filters' drain at the end reads the clock; the lines that skip the chain do not")
			continue
		}
		require.Len(t, f.times, len(c.times))
		assert.Equal(t, f.times[0], f.times[1], "the two tool updates of one read have its time")
		assert.True(t, f.times[2].After(f.times[1]), "a later read's, a later time")
	}
}

// piecesReader returns its pieces, one a read.
type piecesReader struct{ pieces []string }

func (p *piecesReader) Read(b []byte) (int, error) {
	if len(p.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.pieces[0])
	if n == len(p.pieces[0]) {
		p.pieces = p.pieces[1:]
	} else {
		p.pieces = append([]string{p.pieces[0][n:]}, p.pieces[1:]...)
	}
	return n, nil
}
