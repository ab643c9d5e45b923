package view

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// doubling delivers each agent→client message twice, and holds the
// session/prompt response until a timer releases it.
type doubling struct{ held []byte }

func (*doubling) Name() string { return "doubling" }

func (f *doubling) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir == acp.AgentToClient && strings.Contains(string(m.Raw), `"stopReason"`) {
		f.held = append([]byte(nil), m.Raw...)
		return filters.Drop
	}
	if m.Dir == acp.AgentToClient {
		if err := out.Emit(m.Dir, m.Raw); err != nil {
			return err
		}
	}
	return out.Emit(m.Dir, m.Raw)
}

func (f *doubling) Tick(d acp.Direction, now time.Time, out filters.Emitter) time.Time {
	f.Drain(d, out)
	return time.Time{}
}

func (f *doubling) Drain(d acp.Direction, out filters.Emitter) {
	if d == acp.AgentToClient && f.held != nil {
		_ = out.Emit(d, f.held)
		f.held = nil
	}
}

// The message list shows each received message followed by what the
// filters made of it, paired by which message it came from, not by
// position or time; a message a timer released says so.
func TestMessagesPairEachReceivedMessageWithWhatItBecame(t *testing.T) {
	d := build(t, sampleSession, &doubling{})
	var got []string
	for _, m := range d.Messages {
		got = append(got, m.Side)
	}
	// The first four messages: initialize (one out), its result (two out).
	assert.Equal(t, []string{"b", "a", "b", "a", "a"}, got[:5])
	for i, m := range d.Messages {
		if m.Side == "a" && !m.Timer {
			prev := i - 1
			for d.Messages[prev].Side == "a" {
				prev--
			}
			assert.Equal(t, d.Messages[prev].Src, m.Src, "message %d follows the one it came from", i)
		}
	}
	last := d.Messages[len(d.Messages)-1]
	assert.True(t, last.Timer, "the held response was released by a timer")
	assert.Equal(t, "result of session/prompt", last.Label)

	require.NotEmpty(t, d.Calls)
	c := d.Calls[0]
	require.NotEmpty(t, c.Raw.After)
	for _, a := range c.Raw.After {
		found := false
		for _, b := range c.Raw.Before {
			found = found || b.Src == a.Src
		}
		assert.True(t, found, "each raw update after pairs with the update before it came from")
	}
}
