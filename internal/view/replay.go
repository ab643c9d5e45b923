package view

import (
	"context"
	"io"

	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// replay runs the trace in reads through the chain, as acp-proxy replay
// does (trace.Replay: the chain's one driver, filters.Driver, on the
// recorded clock), and writes what it delivers to out as a trace whose lines name the
// received line they were made from. It is the view's one use of the
// replay: each connection gets a chain of its own (opt.Chain for the
// first, opt.NewChain's for the others).
func replay(ctx context.Context, in *trace.Reader, out io.Writer, opt Options) error {
	delivered := []trace.Sink{trace.NewDelivered(out, true)}
	return trace.Replay(ctx, in, func(n int) trace.Connection {
		if n == 0 || opt.NewChain == nil {
			return trace.Connection{Chain: opt.Chain, Sinks: delivered}
		}
		return trace.Connection{Chain: opt.NewChain(), Sinks: delivered}
	})
}
