// Package chaintest runs filter chains in tests: lines in, what left the
// chain out.
package chaintest

import (
	"context"
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

// Run processes raw lines of direction d through c (nil: no filters) and
// returns what left it, in order.
func Run(t testing.TB, c *filters.Chain, d acp.Direction, lines ...string) []Sent {
	t.Helper()
	var out []Sent
	sink := func(d acp.Direction, raw []byte, original bool) error {
		out = append(out, Sent{d, string(raw), original})
		return nil
	}
	for _, l := range lines {
		require.NoError(t, c.Process(context.Background(), filters.NewMessage(d, []byte(l), time.Unix(0, 0), nil), sink))
	}
	return out
}
