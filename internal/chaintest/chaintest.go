// Package chaintest runs filter chains in tests: lines in, what left the
// chain out.
package chaintest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// Sent is one line that left the chain.
type Sent struct {
	Dir      acp.Direction
	Raw      string
	Original bool // the line as it was read, byte for byte
}

// Run processes raw lines of direction d through c (nil: no filters), as
// the relay does, on a clock that stands still at the epoch, and returns
// what left it, in order.
func Run(t testing.TB, c *filters.Chain, d acp.Direction, lines ...string) []Sent {
	t.Helper()
	var out []Sent
	sink := func(l filters.Line) error {
		out = append(out, Sent{l.Dir, string(l.Raw), l.Original})
		return nil
	}
	clock := filters.NewManualClock(time.Unix(0, 0))
	dr := filters.NewDriver(c, clock, sink)
	for _, l := range lines {
		require.NoError(t, dr.Process(filters.NewMessage(d, []byte(l), clock.Now(), nil), sink))
		require.NoError(t, dr.Tick(d))
	}
	return out
}
