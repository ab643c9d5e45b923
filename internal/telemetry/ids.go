package telemetry

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/acp-proxy/acp-proxy/acp"
)

// chosenIDs is the SDK's ID generator: random IDs, except for a span whose
// ID was chosen before it started (withSpanID). The Context filter chooses
// the ID of the proxy's span for a request when it splices the request's
// traceparent, on the relay's pump; the span is made later, on the tap's
// goroutine, and must have that ID for the agent's spans to nest under it.
type chosenIDs struct {
	mu  sync.Mutex
	rnd *rand.ChaCha8
}

func newChosenIDs() *chosenIDs {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	return &chosenIDs{rnd: rand.NewChaCha8(seed)}
}

type spanIDKey struct{}

// withSpanID asks the generator for id as the ID of the span started
// with ctx.
func withSpanID(ctx context.Context, id trace.SpanID) context.Context {
	return context.WithValue(ctx, spanIDKey{}, id)
}

type traceIDKey struct{}

// withTraceID asks the generator for id as the trace ID of the root span
// started with ctx.
func withTraceID(ctx context.Context, id trace.TraceID) context.Context {
	return context.WithValue(ctx, traceIDKey{}, id)
}

func (g *chosenIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if tid, ok := ctx.Value(traceIDKey{}).(trace.TraceID); ok && tid.IsValid() {
		return tid, g.spanID(ctx)
	}
	return g.traceID(), g.spanID(ctx)
}

// traceID is a random trace ID. Under mu.
func (g *chosenIDs) traceID() trace.TraceID {
	var tid trace.TraceID
	for !tid.IsValid() {
		binary.NativeEndian.PutUint64(tid[:8], g.rnd.Uint64())
		binary.NativeEndian.PutUint64(tid[8:], g.rnd.Uint64())
	}
	return tid
}

// newTraceID is a random trace ID for the Context filter.
func (g *chosenIDs) newTraceID() trace.TraceID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.traceID()
}

func (g *chosenIDs) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanID(ctx)
}

// spanID is the chosen ID, or a random one. Under mu.
func (g *chosenIDs) spanID(ctx context.Context) trace.SpanID {
	if id, ok := ctx.Value(spanIDKey{}).(trace.SpanID); ok && id.IsValid() {
		return id
	}
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.NativeEndian.PutUint64(sid[:], g.rnd.Uint64())
	}
	return sid
}

// newSpanID is a random span ID for the Context filter.
func (g *chosenIDs) newSpanID() trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanID(context.Background())
}

// unsampledRoots is the trace IDs the Context filter chose for the roots
// it did not sample (--otel-propagate: initialize and the requests that
// open a session, when the sampler leaves their new trace out), by
// request, until the tap starts the request's span: the span gets that
// trace ID, and so the sampler's same answer, where the filter wrote
// nothing in the request to tell it. Bounded by maxInFlight.
type unsampledRoots struct {
	mu sync.Mutex
	m  map[string]trace.TraceID
}

// rootKey is a client request's method and raw id.
func rootKey(m *acp.Message) string { return m.Method() + " " + string(m.ID()) }

func (r *unsampledRoots) put(m *acp.Message, tid trace.TraceID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]trace.TraceID{}
	}
	if len(r.m) < maxInFlight {
		r.m[rootKey(m)] = tid
	}
}

// take is the trace ID chosen for request m's span, which it forgets.
func (r *unsampledRoots) take(m *acp.Message) (trace.TraceID, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := rootKey(m)
	tid, ok := r.m[k]
	delete(r.m, k)
	return tid, ok
}
