package telemetry

import (
	"bytes"
	"context"
	"sync"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// spanned reports whether the proxy makes a span of a request of method,
// of which a client's traceparent is the parent.
func spanned(method string) bool {
	switch method {
	case "initialize", "session/new", "session/load", "session/resume", "session/prompt":
		return true
	}
	return false
}

// remote is the W3C trace context a request carries as its params._meta
// traceparent and tracestate (the meta-propagation RFD's root _meta
// keys), as the parent of the proxy's span; invalid when it carries none
// that parses.
func remote(params []byte) trace.SpanContext {
	tp, ok := rawjson.GetString(params, "_meta", "traceparent")
	if !ok {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{"traceparent": tp}
	if ts, ok := rawjson.GetString(params, "_meta", "tracestate"); ok {
		carrier["tracestate"] = ts
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), carrier)
	return trace.SpanContextFromContext(ctx)
}

// Context is the filter that passes a client's trace context on with the
// proxy's span in it: a request the proxy makes a span of (initialize,
// session/new, /load, /resume, /prompt) whose params._meta.traceparent
// parses reaches the agent with the parent-id of that traceparent replaced
// by the ID the proxy's span will have (version 00, the same trace-id and
// flags). tracestate and baggage pass unchanged, as does every other
// message. A request without a traceparent gets none, unless Add
// (--otel-propagate): it then gets the proxy's own, in the trace the proxy
// starts for the connection (initialize) or the session (the session's
// requests, and the prompts of a session the filter saw open).
//
// It only passes on a span the proxy exports: it asks the provider's
// sampler first, with the trace ID and parent the span will have, and when
// the span will not be sampled the request passes as it came (the client's
// own context, untouched; with Add, nothing added). Without tracecontext in
// OTEL_PROPAGATORS it stands aside.
type Context struct {
	ids          *chosenIDs
	roots        *unsampledRoots
	sampler      sdktrace.Sampler
	traceContext bool
	Add          bool
	// Only with Add, under mu (both pumps): the span context of the
	// proxy's span of each session, by id (the most recent maxSessions),
	// and of each session/new in flight, by request id, until its response.
	mu       sync.Mutex
	sessions *recent[trace.SpanContext]
	opening  acp.Requests[trace.SpanContext]
}

// maxSessions bounds the sessions whose state the proxy keeps (the Context
// filter's and the tap's): past it, the least recently used is forgotten,
// its span ended. An editor rarely keeps more than a few dozen open.
const maxSessions = 256

var (
	_ filters.Filter    = (*Context)(nil)
	_ filters.KnowsV2   = (*Context)(nil)
	_ filters.Explained = (*Context)(nil)
	_ filters.OneWay    = (*Context)(nil)
)

// Context is the provider's trace-context filter, which goes last in the
// chain.
func (p *Provider) Context() *Context {
	return &Context{ids: p.ids, roots: p.roots, sampler: p.sampler, traceContext: p.traceContext,
		sessions: newRecent[trace.SpanContext](maxSessions), opening: acp.Requests[trace.SpanContext]{Max: maxInFlight}}
}

// maxInFlight bounds the requests followed to their responses, as
// acp.Requests' Max: a peer that never answers cannot grow the state.
const maxInFlight = 4096

func (*Context) Name() string { return "otel-context" }

// Reads: the client's requests, and with Add the agent's answers to
// session/new; nothing without trace context. A direction it does not read
// passes the relay as without filters (filters.OneWay).
func (c *Context) Reads(d acp.Direction) bool {
	return c.traceContext && (d == acp.ClientToAgent || c.Add)
}

// KnowsV2: the _meta keys are the same in every protocol version.
func (*Context) KnowsV2() bool { return true }

// Flag is what turned the filter on: export, by flag or variable.
func (*Context) Flag() string { return "--otel-endpoint" }

func (*Context) Explain(d acp.Direction, changed bool, _ *capabilities.Negotiated) string {
	switch {
	case d == acp.AgentToClient:
		return ""
	case changed:
		return "passed trace context on to the agent with the proxy's span as the parent"
	}
	return "stood aside: no traceparent from the client (--otel-propagate adds the proxy's), or the proxy's span not sampled"
}

var quotedTraceparent = []byte(`"traceparent"`)

func (c *Context) Apply(m *filters.Message, out filters.Emitter) error {
	if !c.traceContext {
		return nil
	}
	if c.Add && m.Dir == acp.AgentToClient {
		c.answered(m)
		return nil
	}
	if m.Dir != acp.ClientToAgent || !c.Add && !bytes.Contains(m.Raw, quotedTraceparent) || !m.IsRequest() || !spanned(m.Method()) {
		return nil
	}
	sc := c.proxySpan(m)
	if !sc.IsSampled() {
		return nil
	}
	tp := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
	raw, err := rawjson.Set(m.Raw, rawjson.Quote(tp), "params", "_meta", "traceparent")
	if err != nil {
		return err
	}
	return out.Emit(m.Dir, raw)
}

// proxySpan is the span context the proxy's span for request m will have:
// a child of the client's context when m carries one, else (Add) of the
// proxy's own (see own); the span ID the filter chooses for it, and
// sampled as the provider's sampler decides. Invalid: the filter gives m no
// context (no client context, and Add off or nothing to add).
func (c *Context) proxySpan(m *filters.Message) trace.SpanContext {
	parent := remote(m.Params())
	var ctx context.Context
	switch {
	case parent.IsValid():
		ctx = trace.ContextWithRemoteSpanContext(context.Background(), parent)
	case !c.Add:
		return trace.SpanContext{}
	default:
		parent = c.own(m)
		if !parent.TraceID().IsValid() {
			return trace.SpanContext{}
		}
		// A root (no span ID: initialize, a session's first request)
		// has no parent; a prompt's parent is its session's span.
		ctx = trace.ContextWithSpanContext(context.Background(), parent)
	}
	res := c.sampler.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: parent.TraceID()})
	flags := parent.TraceFlags().WithSampled(res.Decision == sdktrace.RecordAndSample)
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: parent.TraceID(), SpanID: c.ids.newSpanID(), TraceFlags: flags})
	if c.Add {
		c.opened(m, sc)
	}
	if !sc.IsSampled() && !parent.SpanID().IsValid() { // a root of its own
		c.roots.put(&m.Message, sc.TraceID())
	}
	return sc
}

// spliced is the span ID the Context filter gave the proxy's span for a
// request it wrote as out: the parent-id of out's traceparent, when it
// differs from the one the client sent (in). Invalid: the filter did not
// splice it.
func spliced(in trace.SpanContext, out []byte) trace.SpanID {
	m := acp.NewMessage(acp.ClientToAgent, out, timeZero)
	sc := remote(m.Params())
	if !sc.IsValid() || sc.SpanID() == in.SpanID() {
		return trace.SpanID{}
	}
	return sc.SpanID()
}

// own is the parent the proxy gives request m, which carries no trace
// context (Add): a new trace, with no parent span, for initialize and the
// requests that open a session; the session's span for a prompt (invalid,
// for the prompt of a session the filter did not see open).
func (c *Context) own(m *filters.Message) trace.SpanContext {
	if m.Method() == "session/prompt" {
		c.mu.Lock()
		defer c.mu.Unlock()
		sc, _ := c.sessions.get(m.SessionID())
		return sc
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: c.ids.newTraceID()})
}

// opened keeps the span context of the proxy's span of a request that
// opens a session (Add), for the session's prompts: session/new's until
// its response names the session, /load's and /resume's at once.
func (c *Context) opened(m *filters.Message, sc trace.SpanContext) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m.Method() {
	case "session/new":
		c.opening.Open(&m.Message, sc)
	case "session/load", "session/resume":
		c.sessions.put(m.SessionID(), sc)
	}
}

// answered follows the response to a session/new the filter gave a trace
// (Add): the session it opened keeps that trace.
func (c *Context) answered(m *filters.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opening.Len() == 0 || !m.IsResponse() {
		return
	}
	sc, ok := c.opening.Close(&m.Message)
	if sid, found := rawjson.GetString(m.Result(), "sessionId"); ok && found {
		c.sessions.put(sid, sc)
	}
}

// addedContext is the trace context the Context filter gave a request that
// carried none (Add), read from what it wrote (out): the proxy's span for
// the request has that trace-id and span-id. Invalid: it added none.
func addedContext(in trace.SpanContext, out [][]byte) trace.SpanContext {
	if in.IsValid() || len(out) != 1 {
		return trace.SpanContext{}
	}
	return remote(acp.NewMessage(acp.ClientToAgent, out[0], timeZero).Params())
}
