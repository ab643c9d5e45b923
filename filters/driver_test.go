package filters_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// holding holds every message of either direction for a while, then
// releases it: the shape of a coalescing filter.
type holding struct {
	hold time.Duration
	held [2][]heldLine
}

type heldLine struct {
	raw []byte
	due time.Time
}

func (*holding) Name() string { return "holding" }

func (h *holding) Apply(m *filters.Message, _ filters.Emitter) error {
	h.held[m.Dir] = append(h.held[m.Dir], heldLine{append([]byte(nil), m.Raw...), m.Time.Add(h.hold)})
	return filters.Drop
}

func (h *holding) Tick(d acp.Direction, now time.Time, out filters.Emitter) time.Time {
	for len(h.held[d]) > 0 && !h.held[d][0].due.After(now) {
		_ = out.Emit(d, h.held[d][0].raw)
		h.held[d] = h.held[d][1:]
	}
	if len(h.held[d]) == 0 {
		return time.Time{}
	}
	return h.held[d][0].due
}

func (h *holding) Drain(d acp.Direction, out filters.Emitter) {
	for _, l := range h.held[d] {
		_ = out.Emit(d, l.raw)
	}
	h.held[d] = nil
}

// released is what a driver released, with the clock's time then.
type released struct {
	at  time.Duration
	dir acp.Direction
	raw string
}

func TestADriverOnAManualClockReleasesHeldLinesAtTheirTimes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clock := filters.NewManualClock(t0)
	var got []released
	dr := filters.NewDriver(filters.NewChain(capabilities.New(), &holding{hold: 10 * time.Millisecond}), clock,
		func(l filters.Line) error {
			got = append(got, released{clock.Now().Sub(t0), l.Dir, string(l.Raw)})
			return nil
		})
	line := func(d acp.Direction, raw string) {
		require.NoError(t, dr.Process(filters.NewMessage(d, []byte(raw), clock.Now(), nil), func(filters.Line) error {
			assert.Fail(t, "a held line went through", raw)
			return nil
		}))
		require.NoError(t, dr.Tick(d))
	}

	line(acp.AgentToClient, `{"n":1}`)
	require.NoError(t, clock.Advance(t0.Add(5*time.Millisecond)))
	line(acp.ClientToAgent, `{"n":2}`)
	line(acp.AgentToClient, `{"n":3}`)
	require.NoError(t, clock.Advance(t0.Add(12*time.Millisecond)))
	assert.Equal(t, []released{{10 * time.Millisecond, acp.AgentToClient, `{"n":1}`}}, got, "each at its own time; nothing not yet due")

	require.NoError(t, clock.Advance(t0.Add(time.Second)))
	assert.Equal(t, []released{
		{10 * time.Millisecond, acp.AgentToClient, `{"n":1}`},
		{15 * time.Millisecond, acp.ClientToAgent, `{"n":2}`},
		{15 * time.Millisecond, acp.AgentToClient, `{"n":3}`},
	}, got, "client→agent first at the same time")
	assert.Equal(t, t0.Add(time.Second), clock.Now())

	require.NoError(t, clock.Advance(t0))
	assert.Equal(t, t0.Add(time.Second), clock.Now(), "the clock never goes back")
}

func TestADriverDrainsWhatIsHeldAndWakesNoMoreWhenStopped(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clock := filters.NewManualClock(t0)
	var got []string
	dr := filters.NewDriver(filters.NewChain(capabilities.New(), &holding{hold: time.Second}), clock,
		func(l filters.Line) error { got = append(got, string(l.Raw)); return nil })
	require.NoError(t, dr.Process(filters.NewMessage(acp.AgentToClient, []byte(`{"n":1}`), t0, nil), nil))
	require.NoError(t, dr.Tick(acp.AgentToClient))
	dr.Stop(acp.AgentToClient)
	require.NoError(t, dr.Drain(acp.AgentToClient))
	assert.Equal(t, []string{`{"n":1}`}, got)
	require.NoError(t, clock.Advance(t0.Add(time.Hour)))
	assert.Equal(t, []string{`{"n":1}`}, got, "no wake after the stop")
}

func TestAManualClockDoesNotStopForAWakeAskedForThePast(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clock := filters.NewManualClock(t0)
	var at []time.Time
	var wake func() error
	wake = func() error {
		at = append(at, clock.Now())
		if len(at) < 3 {
			clock.Wake(acp.AgentToClient, clock.Now(), wake) // now again: a filter that would spin
		}
		return nil
	}
	clock.Wake(acp.AgentToClient, t0.Add(-time.Second), wake)
	require.NoError(t, clock.Advance(t0.Add(time.Second)))
	assert.Equal(t, []time.Time{t0.Add(time.Microsecond), t0.Add(2 * time.Microsecond), t0.Add(3 * time.Microsecond)}, at)
}

// releasing holds every line and releases it on Drain with EmitHeld.
type releasing struct{ held []*filters.Held }

func (*releasing) Name() string { return "releasing" }

func (r *releasing) Apply(m *filters.Message, _ filters.Emitter) error {
	r.held = append(r.held, m.Hold())
	return filters.Drop
}

func (*releasing) Tick(acp.Direction, time.Time, filters.Emitter) time.Time { return time.Time{} }

func (r *releasing) Drain(d acp.Direction, out filters.Emitter) {
	for _, h := range r.held {
		_ = filters.EmitHeld(out, h)
	}
	r.held = nil
}

// A line a filter held back and releases later stays the line as read:
// byte for byte, however little of JSON it is, where a line a filter wrote
// is checked (and one that is not JSON reported and dropped). It leaves
// as a held line: when it was read, and whether it ended in '\n'.
func TestAHeldLineIsReleasedAsTheOriginal(t *testing.T) {
	lines := []string{`{"jsonrpc":"2.0","method":"x"}`, "a log line on stdout", "{\"s\":\"bad \xff utf-8\"}"}
	var errs []error
	c := filters.NewChain(capabilities.New(), &releasing{})
	c.OnError = func(_ acp.Direction, _ string, err error) { errs = append(errs, err) }
	type left struct {
		Raw      string
		Original bool
		Read     time.Time
		NoEOL    bool
	}
	var got []left
	dr := filters.NewDriver(c, filters.NewManualClock(time.Unix(0, 0)), func(l filters.Line) error {
		require.NotNil(t, l.Held)
		got = append(got, left{string(l.Raw), l.Original, l.Held.Time, l.Held.NoEOL})
		return nil
	})
	var want []left
	for i, l := range lines {
		at := time.Unix(int64(i), 0)
		m := filters.NewMessage(acp.AgentToClient, []byte(l), at, nil)
		m.NoEOL = i == len(lines)-1
		require.NoError(t, dr.Process(m, func(filters.Line) error { t.Fatal("a held line left at once"); return nil }))
		assert.True(t, m.Held(), "the relay is told the line is held")
		want = append(want, left{l, true, at, m.NoEOL})
	}
	require.NoError(t, dr.Drain(acp.AgentToClient))
	assert.Equal(t, want, got)
	assert.Empty(t, errs)
}

// A Woken filter is given a wake that runs its direction's Tick from any
// goroutine, on the driver's clock.
func TestAWokenFilterIsTickedWhenItWakes(t *testing.T) {
	f := &waking{ticked: make(chan struct{}, 1)}
	dr := filters.NewDriver(filters.NewChain(capabilities.New(), f), filters.NewTimerClock(nil), func(filters.Line) error { return nil })
	go f.wake(acp.AgentToClient)
	select {
	case <-f.ticked:
	case <-time.After(20 * time.Second):
		t.Fatal("the wake ran no Tick")
	}
	_ = dr
}

type waking struct {
	wake   func(acp.Direction)
	ticked chan struct{}
}

func (*waking) Name() string                                  { return "waking" }
func (*waking) Apply(*filters.Message, filters.Emitter) error { return nil }
func (w *waking) SetWake(wake func(acp.Direction))            { w.wake = wake }
func (*waking) Drain(acp.Direction, filters.Emitter)          {}
func (w *waking) Tick(acp.Direction, time.Time, filters.Emitter) time.Time {
	select {
	case w.ticked <- struct{}{}:
	default:
	}
	return time.Time{}
}
