package proxy

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// eventTap writes down what the relay tells it, one line per call.
type eventTap struct {
	mu     sync.Mutex
	events []string
}

func (e *eventTap) note(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, fmt.Sprintf(format, args...))
}

func (e *eventTap) Passed(p *Passage) {
	var out []string
	for _, s := range p.Out {
		if s.Original {
			out = append(out, "=")
		} else {
			out = append(out, string(s.Line))
		}
	}
	held := ""
	if p.Held {
		held = " held"
	}
	e.note("passed %s %s eol=%v changed=%v%s -> [%s]", p.Dir, p.Line, p.EOL, p.Changed(), held, strings.Join(out, " "))
}

func (e *eventTap) Released(p *Passage) {
	changed := ""
	if p.Changed() {
		var out []string
		for _, s := range p.Out {
			out = append(out, fmt.Sprintf("%s original=%v", s.Line, s.Original))
		}
		changed = " -> [" + strings.Join(out, " ") + "]"
	}
	e.note("released %s %s eol=%v read=%d left=%d original=%v%s", p.Dir, p.Line, p.EOL, p.Time.Unix(), p.Left.Unix(),
		len(p.Out) == 1 && p.Out[0].Original && string(p.Out[0].Line) == string(p.Line), changed)
}

func (e *eventTap) Added(d acp.Direction, _ time.Time, line []byte, timed bool) {
	e.note("added %s %s timed=%v", d, line, timed)
}

func (e *eventTap) Long(d acp.Direction) LongLine { return &longEvents{tap: e, d: d} }

func (e *eventTap) End(d acp.Direction) error { e.note("end %s", d); return nil }

type longEvents struct {
	tap  *eventTap
	d    acp.Direction
	line []byte
}

func (l *longEvents) Piece(b []byte) { l.line = append(l.line, b...) }
func (l *longEvents) End(_ time.Time, eol bool) {
	l.tap.note("long %s %d bytes eol=%v", l.d, len(l.line), eol)
}

// endHolder holds "chunk" lines until its direction's input ends: a timed
// filter whose timer never runs, so what it releases is known in advance.
// It sends them on as lines of its own (Emit); "hold" lines, and lines
// that are not JSON, it holds (Hold) and sends on as they came (EmitHeld).
type endHolder struct {
	held  [][]byte
	lines []*filters.Held
}

func (h *endHolder) Name() string { return "end-holder" }
func (h *endHolder) Apply(m *filters.Message, _ filters.Emitter) error {
	switch {
	case !m.Valid() || m.Method() == "hold":
		h.lines = append(h.lines, m.Hold())
		return filters.Drop
	case m.Method() == "chunk":
		h.held = append(h.held, append([]byte(nil), m.Raw...))
		return filters.Drop
	}
	return nil
}
func (h *endHolder) Tick(acp.Direction, time.Time, filters.Emitter) time.Time { return time.Time{} }
func (h *endHolder) Drain(d acp.Direction, out filters.Emitter) {
	for _, l := range h.lines {
		_ = filters.EmitHeld(out, l)
	}
	for _, b := range h.held {
		_ = out.Emit(d, b)
	}
	h.held, h.lines = nil, nil
}

// The relay tells its taps each line it read with what it wrote for it,
// each line it wrote on its own, and each long line, in the order they
// happened, and that the direction ended.
func TestTapsSeeEachLineWithWhatTheRelayWroteForIt(t *testing.T) {
	rewriting := rewritingFilter
	long := `{"method":"long","p":"` + strings.Repeat("x", 70<<10) // past the read buffer, where the framer streams + `"}`
	cases := []struct {
		name   string
		relay  *Relay
		in     string
		events []string
	}{
		{
			name:  "no filters",
			relay: &Relay{},
			in:    "{\"method\":\"a\"}\n{\"method\":\"b\"}",
			events: []string{
				`passed client->agent {"method":"a"} eol=true changed=false -> [=]`,
				`passed client->agent {"method":"b"} eol=false changed=false -> [=]`,
				`end client->agent`,
			},
		},
		{
			name:  "filters",
			relay: &Relay{Chain: filters.NewChain(capabilities.New(), rewriting, &endHolder{})},
			in:    "{\"method\":\"a\"}\n{\"method\":\"drop\"}\n{\"method\":\"dup\"}\n{\"method\":\"ans\"}\n{\"method\":\"chunk\"}\n",
			events: []string{
				`passed client->agent {"method":"a"} eol=true changed=false -> [=]`,
				`passed client->agent {"method":"drop"} eol=true changed=true -> []`,
				`passed client->agent {"method":"dup"} eol=true changed=true -> [= {"method":"dup","copy":true}]`,
				`added agent->client {"id":1,"result":{}} timed=false`,
				`passed client->agent {"method":"ans"} eol=true changed=false -> [=]`,
				`passed client->agent {"method":"chunk"} eol=true changed=true -> []`,
				`added client->agent {"method":"chunk"} timed=true`,
				`end client->agent`,
			},
		},
		{
			name:  "held lines",
			relay: &Relay{Chain: filters.NewChain(capabilities.New(), &endHolder{}), Now: func() time.Time { return time.Unix(7, 0) }},
			in:    "{\"method\":\"hold\"}\na log line\n{\"method\":\"a\"}\n{\"method\":\"hold\",\"last\":1}",
			events: []string{
				`passed client->agent {"method":"hold"} eol=true changed=false held -> []`,
				`passed client->agent a log line eol=true changed=false held -> []`,
				`passed client->agent {"method":"a"} eol=true changed=false -> [=]`,
				`passed client->agent {"method":"hold","last":1} eol=false changed=false held -> []`,
				`released client->agent {"method":"hold"} eol=true read=7 left=7 original=true`,
				`released client->agent a log line eol=true read=7 left=7 original=true`,
				`released client->agent {"method":"hold","last":1} eol=false read=7 left=7 original=true`,
				`end client->agent`,
			},
		},
		{
			name:  "a line too long to filter",
			relay: &Relay{Chain: filters.NewChain(capabilities.New(), rewriting), MaxFilterLine: 100},
			in:    "{\"method\":\"a\"}\n" + long + "\n",
			events: []string{
				`passed client->agent {"method":"a"} eol=true changed=false -> [=]`,
				fmt.Sprintf(`long client->agent %d bytes eol=true`, len(long)),
				`end client->agent`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tap := &eventTap{}
			c.relay.Taps = []Tap{tap}
			var toAgent, toClient bytes.Buffer
			require.NoError(t, c.relay.Open(&toAgent, &toClient).Pump(acp.ClientToAgent, strings.NewReader(c.in)))
			assert.Equal(t, c.events, tap.events)
		})
	}
}

// panicTap panics in one of its calls (in: "Passed", "Added", "Long",
// "Piece", "LongEnd", "End"), from the call numbered at on; until then,
// and in every other call, it is an eventTap.
type panicTap struct {
	eventTap
	in    string
	at    int
	calls int
}

func (p *panicTap) maybe(call string) {
	if call != p.in {
		return
	}
	p.calls++
	if p.calls >= p.at {
		panic("observer bug in " + call)
	}
}

func (p *panicTap) Passed(ps *Passage) { p.maybe("Passed"); p.eventTap.Passed(ps) }
func (p *panicTap) Added(d acp.Direction, t time.Time, line []byte, timed bool) {
	p.maybe("Added")
	p.eventTap.Added(d, t, line, timed)
}
func (p *panicTap) Released(ps *Passage) { p.maybe("Released"); p.eventTap.Released(ps) }
func (p *panicTap) Long(d acp.Direction) LongLine {
	p.maybe("Long")
	return &panicLong{p: p, LongLine: p.eventTap.Long(d)}
}
func (p *panicTap) End(d acp.Direction) error { p.maybe("End"); return p.eventTap.End(d) }

type panicLong struct {
	LongLine
	p *panicTap
}

func (l *panicLong) Piece(b []byte)            { l.p.maybe("Piece"); l.LongLine.Piece(b) }
func (l *panicLong) End(t time.Time, eol bool) { l.p.maybe("LongEnd"); l.LongLine.End(t, eol) }

// An observer that panics, wherever it does, is switched off for the rest
// of the connection with one log line: the relay writes every byte, the
// other taps see every line, and the failed one is told nothing more.
func TestATapThatPanicsIsSwitchedOffAndTheRelayGoesOn(t *testing.T) {
	long := `{"method":"long","p":"` + strings.Repeat("x", 70<<10) + `"}` // past the read buffer
	in := "{\"method\":\"a\"}\n{\"method\":\"ans\"}\n" + long + "\n{\"method\":\"b\"}\n{\"method\":\"chunk\"}\n{\"method\":\"c\"}\n{\"method\":\"hold\"}\n"
	for _, call := range []string{"Passed", "Added", "Released", "Long", "Piece", "LongEnd", "End"} {
		t.Run(call, func(t *testing.T) {
			var logged bytes.Buffer
			bad := &panicTap{in: call, at: 1}
			good := &eventTap{}
			r := &Relay{
				Chain:         filters.NewChain(capabilities.New(), rewritingFilter, &endHolder{}),
				MaxFilterLine: 1 << 10,
				Log:           slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn})),
				Taps:          []Tap{bad, good},
			}
			var toAgent, toClient bytes.Buffer
			require.NoError(t, r.Open(&toAgent, &toClient).Pump(acp.ClientToAgent, iotest.HalfReader(strings.NewReader(in))))

			want := strings.Replace(in, "{\"method\":\"chunk\"}\n", "", 1) + "{\"method\":\"chunk\"}\n"
			assert.True(t, want == toAgent.String(), "every byte relayed")
			assert.Equal(t, "{\"id\":1,\"result\":{}}\n", toClient.String())
			assert.Len(t, good.events, 11, "the other tap saw everything")
			assert.Less(t, len(bad.events), len(good.events), "the failed tap was told nothing more")
			lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
			require.Len(t, lines, 1, "one log line")
			assert.Contains(t, lines[0], `"observer":"*proxy.panicTap"`)
			assert.Contains(t, lines[0], `"panic":"observer bug in `+call+`"`)
		})
	}
}

// failingEndTap's End fails: what it recorded is incomplete.
type failingEndTap struct {
	eventTap
	ends int
}

func (f *failingEndTap) End(acp.Direction) error { f.ends++; return fmt.Errorf("disk full") }

// A tap whose End fails is logged once and told nothing more: it failed,
// as one that panics.
func TestATapWhoseEndFailsIsLoggedOnce(t *testing.T) {
	var logged bytes.Buffer
	tap := &failingEndTap{}
	r := &Relay{Log: slog.New(slog.NewJSONHandler(&logged, nil)), Taps: []Tap{tap}}
	var toAgent, toClient bytes.Buffer
	c := r.Open(&toAgent, &toClient)
	require.NoError(t, c.Pump(acp.ClientToAgent, strings.NewReader("{}\n")))
	require.NoError(t, c.Pump(acp.AgentToClient, strings.NewReader("{}\n")))
	assert.Equal(t, 1, tap.ends)
	assert.Equal(t, 1, strings.Count(logged.String(), "\n"))
	assert.Contains(t, logged.String(), `"err":"disk full"`)
}

// A line a filter holds and sends on later leaves as it came, byte for
// byte: a line that is not JSON, bad UTF-8, and the last line of the
// stream without its '\n'.
func TestAHeldLineLeavesAsItCame(t *testing.T) {
	in := "a log line\n{\"method\":\"hold\",\"s\":\"\xff\"}\n{\"method\":\"a\"}\n{\"method\":\"hold\",\"last\":true}"
	for _, taps := range [][]Tap{nil, {&eventTap{}}} {
		r := &Relay{Chain: filters.NewChain(capabilities.New(), &endHolder{}), Taps: taps}
		var toAgent, toClient bytes.Buffer
		require.NoError(t, r.Open(&toAgent, &toClient).Pump(acp.ClientToAgent, strings.NewReader(in)))
		want := "{\"method\":\"a\"}\na log line\n{\"method\":\"hold\",\"s\":\"\xff\"}\n{\"method\":\"hold\",\"last\":true}"
		assert.Equal(t, want, toAgent.String(), "taps: %d", len(taps))
	}
}

// A timer may release a held line after the chain held it and before the
// pump has told the taps of it: the taps are told of the line, held, then
// of its release, never the other way round.
func TestTapsAreToldOfAHeldLineBeforeItsRelease(t *testing.T) {
	t0 := time.Unix(7, 0)
	tap := &eventTap{}
	r := &Relay{Chain: filters.NewChain(capabilities.New(), &endHolder{}), Taps: []Tap{tap}, Now: func() time.Time { return t0 }}
	var toAgent bytes.Buffer
	c := r.Open(&toAgent, &bytes.Buffer{})
	raw := []byte(`{"method":"hold"}`)
	released := filters.NewMessage(acp.ClientToAgent, raw, t0, nil).Hold()
	require.NoError(t, c.sink(filters.Line{Dir: acp.ClientToAgent, Raw: raw, Original: true, Held: released}))
	_, err := c.process(acp.ClientToAgent, line{bytes: raw, terminated: true}, readAt(t0))
	require.NoError(t, err)
	assert.Equal(t, []string{
		`passed client->agent {"method":"hold"} eol=true changed=false held -> []`,
		`released client->agent {"method":"hold"} eol=true read=7 left=7 original=true`,
	}, tap.events)
	assert.Equal(t, "{\"method\":\"hold\"}\n", toAgent.String())
}
