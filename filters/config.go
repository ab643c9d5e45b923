package filters

import (
	"time"

	"github.com/acp-proxy/acp-proxy/capabilities"
)

// Config says which filters run and how. The zero value enables none: a
// byte-exact relay.
type Config struct {
	// Filters are added to the chain in this order, whatever order the
	// flags were given in (the canonical order, documented in README.md).
}

// DefaultCoalesceInterval bounds how long coalesced output waits.
const DefaultCoalesceInterval = 100 * time.Millisecond

// Chain builds the chain cfg asks for, reading and recording negotiated
// state in caps.
func (cfg Config) Chain(caps *capabilities.Negotiated) *Chain {
	var fs []Filter
	return NewChain(caps, fs...)
}
