package proxy

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
)

// rewriteHolder holds lines of method "hold" and "rewrite" (Hold) and
// sends them on before a line of method "release", and at the end: a
// "hold" line as it came (EmitHeld), a "rewrite" line changed to method
// "rewritten" (EmitHeldAs), as --show-changes sends a call's end alone or
// with its diffs.
type rewriteHolder struct{ held []*filters.Held }

func (*rewriteHolder) Name() string { return "rewrite-holder" }

func (h *rewriteHolder) Apply(m *filters.Message, out filters.Emitter) error {
	switch m.Method() {
	case "hold", "rewrite":
		h.held = append(h.held, m.Hold())
		return filters.Drop
	case "release":
		h.Drain(m.Dir, out)
	}
	return nil
}

func (*rewriteHolder) Tick(acp.Direction, time.Time, filters.Emitter) time.Time { return time.Time{} }

func (h *rewriteHolder) Drain(_ acp.Direction, out filters.Emitter) {
	for _, l := range h.held {
		if r := bytes.Replace(l.Raw, []byte(`"rewrite"`), []byte(`"rewritten"`), 1); len(r) != len(l.Raw) {
			_ = filters.EmitHeldAs(out, l, r)
			continue
		}
		_ = filters.EmitHeld(out, l)
	}
	h.held = nil
}

// Held lines released changed and unchanged, in any mix, each pair with
// their own held line: the taps are told each line held, then its release
// (the line as read, and, changed, the line that left in its place), never
// a line the proxy added; a changed line is written whole, with '\n', even
// for a held line that had none.
func TestChangedAndUnchangedReleasesPairWithTheirHeldLines(t *testing.T) {
	in := `{"method":"hold","n":1}` + "\n" + `{"method":"rewrite","n":2}` + "\n" + `{"method":"hold","n":3}` + "\n" +
		`{"method":"release"}` + "\n" + `{"method":"rewrite","n":4}` + "\n" + `{"method":"hold","n":5}` + "\n" + `{"method":"rewrite","n":6}`
	tap := &eventTap{}
	r := &Relay{Chain: filters.NewChain(capabilities.New(), &rewriteHolder{}), Taps: []Tap{tap}, Now: func() time.Time { return time.Unix(7, 0) }}
	var toClient bytes.Buffer
	c := r.Open(&bytes.Buffer{}, &toClient)
	require.NoError(t, c.Pump(acp.AgentToClient, strings.NewReader(in)))
	assert.Equal(t, `{"method":"hold","n":1}`+"\n"+`{"method":"rewritten","n":2}`+"\n"+`{"method":"hold","n":3}`+"\n"+
		`{"method":"release"}`+"\n"+`{"method":"rewritten","n":4}`+"\n"+`{"method":"hold","n":5}`+"\n"+`{"method":"rewritten","n":6}`+"\n",
		toClient.String())
	assert.Equal(t, []string{
		`passed agent->client {"method":"hold","n":1} eol=true changed=false held -> []`,
		`passed agent->client {"method":"rewrite","n":2} eol=true changed=false held -> []`,
		`passed agent->client {"method":"hold","n":3} eol=true changed=false held -> []`,
		`released agent->client {"method":"hold","n":1} eol=true read=7 left=7 original=true`,
		`released agent->client {"method":"rewrite","n":2} eol=true read=7 left=7 original=false -> [{"method":"rewritten","n":2} original=false]`,
		`released agent->client {"method":"hold","n":3} eol=true read=7 left=7 original=true`,
		`passed agent->client {"method":"release"} eol=true changed=false -> [=]`,
		`passed agent->client {"method":"rewrite","n":4} eol=true changed=false held -> []`,
		`passed agent->client {"method":"hold","n":5} eol=true changed=false held -> []`,
		`passed agent->client {"method":"rewrite","n":6} eol=false changed=false held -> []`,
		`released agent->client {"method":"rewrite","n":4} eol=true read=7 left=7 original=false -> [{"method":"rewritten","n":4} original=false]`,
		`released agent->client {"method":"hold","n":5} eol=true read=7 left=7 original=true`,
		`released agent->client {"method":"rewrite","n":6} eol=false read=7 left=7 original=false -> [{"method":"rewritten","n":6} original=false]`,
		`end agent->client`,
	}, tap.events)
}

// A timer may release a held line changed before the pump has told the
// taps of it: they are told of the line held, then of its release with
// what left in its place, which pairs with that line, not the next.
func TestAChangedReleaseBeforeItsPassageWaitsForIt(t *testing.T) {
	t0 := time.Unix(7, 0)
	tap := &eventTap{}
	r := &Relay{Chain: filters.NewChain(capabilities.New(), &rewriteHolder{}), Taps: []Tap{tap}, Now: func() time.Time { return t0 }}
	var toClient bytes.Buffer
	c := r.Open(&bytes.Buffer{}, &toClient)
	raw := []byte(`{"method":"rewrite"}`)
	h := filters.NewMessage(acp.AgentToClient, raw, t0, nil).Hold()
	require.NoError(t, c.sink(filters.Line{Dir: acp.AgentToClient, Raw: []byte(`{"method":"rewritten"}`), Held: h}))
	_, err := c.process(acp.AgentToClient, line{bytes: raw, terminated: true}, readAt(t0))
	require.NoError(t, err)
	next := []byte(`{"method":"hold"}`)
	_, err = c.process(acp.AgentToClient, line{bytes: next, terminated: true}, readAt(t0))
	require.NoError(t, err)
	require.NoError(t, c.sink(filters.Line{Dir: acp.AgentToClient, Raw: next, Original: true, Held: filters.NewMessage(acp.AgentToClient, next, t0, nil).Hold()}))
	assert.Equal(t, []string{
		`passed agent->client {"method":"rewrite"} eol=true changed=false held -> []`,
		`released agent->client {"method":"rewrite"} eol=true read=7 left=7 original=false -> [{"method":"rewritten"} original=false]`,
		`passed agent->client {"method":"hold"} eol=true changed=false held -> []`,
		`released agent->client {"method":"hold"} eol=true read=7 left=7 original=true`,
	}, tap.events)
	assert.Equal(t, "{\"method\":\"rewritten\"}\n{\"method\":\"hold\"}\n", toClient.String())
}

// readAt is a lineClock whose last read was at t.
func readAt(t time.Time) *lineClock { return &lineClock{now: t, fresh: true} }
