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
