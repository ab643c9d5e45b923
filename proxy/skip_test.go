package proxy

import (
	"bytes"
	"strings"
	"testing"

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
