package filters_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

func forward(*filters.Message, filters.Emitter) error { return nil }

// The contract: a filter that returns nil without emitting in the
// message's direction has forwarded it; Drop drops it; what a filter
// emitted stays emitted, whatever it returns after.
func TestTheFilterContract(t *testing.T) {
	const in = `{"method":"x"}`
	type apply = func(m *filters.Message, out filters.Emitter) error
	own := func(raw string) apply {
		return func(m *filters.Message, out filters.Emitter) error { return out.Emit(m.Dir, []byte(raw)) }
	}
	back := func(raw string) apply {
		return func(m *filters.Message, out filters.Emitter) error { return out.Emit(m.Dir.Reverse(), []byte(raw)) }
	}
	then := func(first, second apply) apply {
		return func(m *filters.Message, out filters.Emitter) error {
			if err := first(m, out); err != nil {
				return err
			}
			return second(m, out)
		}
	}
	fail := func(*filters.Message, filters.Emitter) error { return errors.New("no") }
	drop := func(*filters.Message, filters.Emitter) error { return filters.Drop }
	unchanged := chaintest.Sent{Dir: acp.ClientToAgent, Raw: in, Original: true}
	added := chaintest.Sent{Dir: acp.ClientToAgent, Raw: `{"added":1}`}
	answer := chaintest.Sent{Dir: acp.AgentToClient, Raw: `{"answer":1}`}
	cases := []struct {
		name     string
		apply    apply
		want     []chaintest.Sent
		failures int
	}{
		{"returns nil, emits nothing: forwarded unchanged", forward, []chaintest.Sent{unchanged}, 0},
		{"returns Drop: dropped, no failure", drop, nil, 0},
		{"emits a line: the line goes in its place", own(`{"added":1}`), []chaintest.Sent{added}, 0},
		{"emits a line and the message", then(own(`{"added":1}`), func(m *filters.Message, out filters.Emitter) error { return out.Emit(m.Dir, m.Raw) }), []chaintest.Sent{added, unchanged}, 0},
		{"answers the other side only: forwarded too", back(`{"answer":1}`), []chaintest.Sent{answer, unchanged}, 0},
		{"answers and drops", then(back(`{"answer":1}`), drop), []chaintest.Sent{answer}, 0},
		{"fails before emitting: forwarded unchanged", fail, []chaintest.Sent{unchanged}, 1},
		{"fails after emitting: what it emitted stays", then(own(`{"added":1}`), fail), []chaintest.Sent{added}, 1},
		{"drops after emitting: what it emitted stays", then(own(`{"added":1}`), drop), []chaintest.Sent{added}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var failures []string
			chain := filters.NewChain(capabilities.New(), filters.Func{FilterName: "f", Fn: c.apply})
			chain.OnError = func(_ acp.Direction, filter string, err error) { failures = append(failures, filter+": "+err.Error()) }
			assert.Equal(t, c.want, chaintest.Run(t, chain, acp.ClientToAgent, in))
			assert.Len(t, failures, c.failures)
			own := 0
			for _, s := range c.want {
				if s.Dir == acp.ClientToAgent {
					own++
				}
			}
			assert.Equal(t, int64(own), chain.Stats()[0].Out[acp.ClientToAgent].Messages, "what went on in the message's direction is counted")
		})
	}
}

func TestAnEmptyChainForwardsTheOriginal(t *testing.T) {
	for _, c := range []*filters.Chain{nil, filters.NewChain(capabilities.New())} {
		got := chaintest.Run(t, c, acp.AgentToClient, `{"a":1}`, `garbage`)
		assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: `{"a":1}`, Original: true}, {Dir: acp.AgentToClient, Raw: `garbage`, Original: true}}, got)
	}
}

func TestFailingFiltersFailOpen(t *testing.T) {
	var failures []string
	cases := map[string]filters.Func{
		"error": {"err", func(*filters.Message, filters.Emitter) error { return errors.New("no") }},
		"panic": {"panic", func(*filters.Message, filters.Emitter) error { panic("boom") }},
		"newline": {"nl", func(m *filters.Message, out filters.Emitter) error {
			return out.Emit(m.Dir, []byte("a\nb"))
		}},
		// It swallows the error: nothing went on, so the message does.
		"newline+ignore": {"nl2", func(m *filters.Message, out filters.Emitter) error {
			_ = out.Emit(m.Dir, []byte("a\nb"))
			return nil
		}},
	}
	for name, f := range cases {
		c := filters.NewChain(capabilities.New(), f, filters.Func{"next", forward})
		c.OnError = func(d acp.Direction, filter string, err error) {
			failures = append(failures, filter+": "+err.Error())
		}
		got := chaintest.Run(t, c, acp.ClientToAgent, `{"method":"x"}`)
		assert.Equal(t, []chaintest.Sent{{Dir: acp.ClientToAgent, Raw: `{"method":"x"}`, Original: true}}, got, name)
	}
	assert.Len(t, failures, 3)
	assert.Contains(t, failures, "panic: panic: boom")
}

func TestFilterRunsInOrderAndSeesThePreviousFiltersOutput(t *testing.T) {
	var seen []string
	rename := filters.Func{"rename", func(m *filters.Message, out filters.Emitter) error {
		return out.Emit(m.Dir, []byte(`{"method":"renamed"}`))
	}}
	watch := filters.Func{"watch", func(m *filters.Message, out filters.Emitter) error {
		seen = append(seen, m.Method())
		return nil
	}}
	c := filters.NewChain(capabilities.New(), rename, watch)
	got := chaintest.Run(t, c, acp.AgentToClient, `{"method":"orig"}`)
	assert.Equal(t, []string{"renamed"}, seen)
	assert.Equal(t, []chaintest.Sent{{Dir: acp.AgentToClient, Raw: `{"method":"renamed"}`, Original: false}}, got)

	st := c.Stats()
	assert.Equal(t, "rename", st[0].Name)
	assert.Equal(t, acp.Count{Messages: 1, Bytes: int64(len(`{"method":"orig"}` + "\n"))}, st[0].In[acp.AgentToClient])
	assert.Equal(t, acp.Count{Messages: 1, Bytes: int64(len(`{"method":"renamed"}` + "\n"))}, st[0].Out[acp.AgentToClient])
}

func TestTheChainRecordsWhatTheClientItselfAdvertised(t *testing.T) {
	caps := capabilities.New()
	inject := filters.Func{"inject", func(m *filters.Message, out filters.Emitter) error {
		if m.Method() == "initialize" {
			return out.Emit(m.Dir, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientCapabilities":{"_meta":{"terminal_output":true}}}}`))
		}
		return nil
	}}
	c := filters.NewChain(caps, inject)
	chaintest.Run(t, c, acp.ClientToAgent,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true},"clientInfo":{"name":"acpx"}}}`,
		`{"jsonrpc":"2.0","id":"n","method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	chaintest.Run(t, c, acp.AgentToClient,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"agentInfo":{"name":"codex-acp","version":"0.13.0"}}}`,
		`{"jsonrpc":"2.0","id":"n","result":{"sessionId":"S1"}}`)

	client, ok := caps.Client()
	require.True(t, ok)
	assert.False(t, client.SpeaksTerminalOutput(), "what the client sent, not what a filter injected")
	assert.True(t, client.Terminal)
	assert.True(t, client.ReadTextFile)
	assert.Equal(t, "acpx", client.Name)
	agent, ok := caps.Agent()
	require.True(t, ok)
	assert.Equal(t, 1, agent.ProtocolVersion)
	assert.Equal(t, "codex-acp", agent.Name)
	assert.JSONEq(t, `{"loadSession":true}`, string(agent.Raw))
	s, ok := caps.Session("S1")
	require.True(t, ok)
	assert.Equal(t, "/w", s.Cwd)
}

func TestMessageView(t *testing.T) {
	cases := []struct {
		raw                       string
		method, id, kind, session string
		req, notif, resp, valid   bool
	}{
		{raw: `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s"}}`, method: "session/prompt", id: "3", session: "s", req: true, valid: true},
		{raw: `{"params":{"update":{"sessionUpdate":"tool_call"},"sessionId":"x"},"method":"session/update","jsonrpc":"2.0"}`, method: "session/update", kind: "tool_call", session: "x", notif: true, valid: true},
		{raw: `{"jsonrpc":"2.0","id":"u-1","result":null}`, id: `"u-1"`, resp: true, valid: true},
		{raw: `{"jsonrpc":"2.0","id":null,"error":{"code":1}}`, id: "null", resp: true, valid: true},
		{raw: `{"m\u0065thod":"x"}`, method: "x", notif: true, valid: true},
		{raw: `[{"method":"a"}]`},
		{raw: `{"method":"a"`},
		{raw: `{"method":"a"} x`},
		{raw: ``},
	}
	for _, c := range cases {
		m := filters.NewMessage(acp.AgentToClient, []byte(c.raw), time.Time{}, nil)
		assert.Equal(t, c.valid, m.Valid(), c.raw)
		assert.Equal(t, c.method, m.Method(), c.raw)
		assert.Equal(t, c.id, string(m.ID()), c.raw)
		assert.Equal(t, c.kind, m.UpdateKind(), c.raw)
		assert.Equal(t, c.session, m.SessionID(), c.raw)
		assert.Equal(t, c.req, m.IsRequest(), c.raw)
		assert.Equal(t, c.notif, m.IsNotification(), c.raw)
		assert.Equal(t, c.resp, m.IsResponse(), c.raw)
	}
}

func TestFiltersStandAsideOnAConnectionOfALaterProtocolVersion(t *testing.T) {
	mark := filters.Func{FilterName: "mark", Fn: func(m *filters.Message, out filters.Emitter) error {
		return out.Emit(m.Dir, []byte(`{"marked":true}`))
	}}
	const v2Init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"capabilities":{},"info":{"name":"c"}}}`
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c"}}}`
	untouched := func(d acp.Direction, raw string) []chaintest.Sent {
		return []chaintest.Sent{{Dir: d, Raw: raw, Original: true}}
	}
	marked := func(d acp.Direction) []chaintest.Sent {
		return []chaintest.Sent{{Dir: d, Raw: `{"marked":true}`, Original: false}}
	}

	t.Run("v2 agreed", func(t *testing.T) {
		c := filters.NewChain(capabilities.New(), mark)
		assert.Equal(t, untouched(acp.ClientToAgent, v2Init), chaintest.Run(t, c, acp.ClientToAgent, v2Init),
			"a v2 initialize gets no v1 capability injected")
		res := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2,"capabilities":{},"info":{"name":"a"}}}`
		assert.Equal(t, untouched(acp.AgentToClient, res), chaintest.Run(t, c, acp.AgentToClient, res))
		assert.Equal(t, untouched(acp.AgentToClient, update), chaintest.Run(t, c, acp.AgentToClient, update))
	})
	t.Run("v2 asked, agent answers v1", func(t *testing.T) {
		c := filters.NewChain(capabilities.New(), mark)
		chaintest.Run(t, c, acp.ClientToAgent, v2Init)
		chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
		assert.Equal(t, marked(acp.AgentToClient), chaintest.Run(t, c, acp.AgentToClient, update),
			"the connection speaks v1: filters apply")
	})
	t.Run("v1", func(t *testing.T) {
		c := filters.NewChain(capabilities.New(), mark)
		assert.Equal(t, marked(acp.ClientToAgent), chaintest.Run(t, c, acp.ClientToAgent,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`))
	})
}

// v2Mark is a filter that knows v2 (filters.KnowsV2) and appends a member to every message.
type v2Mark struct{}

func (v2Mark) Name() string  { return "v2mark" }
func (v2Mark) KnowsV2() bool { return true }
func (v2Mark) Apply(m *filters.Message, out filters.Emitter) error {
	return out.Emit(m.Dir, append(append([]byte(nil), m.Raw[:len(m.Raw)-1]...), `,"v2":true}`...))
}

func TestOnV2OnlyTheFiltersThatKnowV2Run(t *testing.T) {
	v1Only := filters.Func{FilterName: "v1only", Fn: func(m *filters.Message, out filters.Emitter) error {
		return out.Emit(m.Dir, []byte(`{"v1only":true}`))
	}}
	const v2Init = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"capabilities":{},"info":{"name":"c"}}}`
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c"}}}`
	for _, order := range [][]filters.Filter{{v1Only, v2Mark{}}, {v2Mark{}, v1Only}} {
		c := filters.NewChain(capabilities.New(), order...)
		got := chaintest.Run(t, c, acp.ClientToAgent, v2Init)
		require.Len(t, got, 1)
		assert.Equal(t, v2Init[:len(v2Init)-1]+`,"v2":true}`, got[0].Raw, "the v2 filter ran, the v1 one stood aside")
		got = chaintest.Run(t, c, acp.AgentToClient, update)
		require.Len(t, got, 1)
		assert.Equal(t, update[:len(update)-1]+`,"v2":true}`, got[0].Raw)
		stats := c.Stats()
		for _, s := range stats {
			if s.Name == "v1only" {
				assert.Zero(t, s.In[acp.AgentToClient].Messages, "a filter that stood aside took nothing in")
			}
		}
	}
}
