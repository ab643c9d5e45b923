package telemetry

import (
	"bytes"
	"context"
	"sync"

	"go.opentelemetry.io/otel/propagation"
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
type Context struct {
	ids *chosenIDs
	Add bool
	// Only with Add, under mu (both pumps): the trace of each session,
	// by id, and of each session/new request, by id, until its response.
	mu       sync.Mutex
	sessions map[string]trace.TraceID
	opening  acp.Requests[trace.TraceID]
}

var (
	_ filters.Filter    = (*Context)(nil)
	_ filters.KnowsV2   = (*Context)(nil)
	_ filters.Explained = (*Context)(nil)
)

// Context is the provider's trace-context filter, which goes last in the
// chain.
func (p *Provider) Context() *Context { return &Context{ids: p.ids} }

func (*Context) Name() string { return "otel-context" }

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
	return "stood aside: no traceparent from the client (--otel-propagate adds the proxy's)"
}

var quotedTraceparent = []byte(`"traceparent"`)

func (c *Context) Apply(m *filters.Message, out filters.Emitter) error {
	if c.Add && m.Dir == acp.AgentToClient {
		c.answered(m)
		return nil
	}
	if m.Dir != acp.ClientToAgent || !c.Add && !bytes.Contains(m.Raw, quotedTraceparent) || !m.IsRequest() || !spanned(m.Method()) {
		return nil
	}
	parent := remote(m.Params())
	if !parent.IsValid() {
		if !c.Add {
			return nil
		}
		parent = c.own(m)
		if !parent.TraceID().IsValid() {
			return nil
		}
	}
	tp := "00-" + parent.TraceID().String() + "-" + c.ids.newSpanID().String() + "-" + parent.TraceFlags().String()
	raw, err := rawjson.Set(m.Raw, rawjson.Quote(tp), "params", "_meta", "traceparent")
	if err != nil {
		return err
	}
	return out.Emit(m.Dir, raw)
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

// own is the trace the proxy starts for request m, which carries no trace
// context (Add): a new one for initialize and the requests that open a
// session, the session's for a prompt (none, invalid, for the prompt of a
// session the filter did not see open). Sampled: the proxy exports every
// span.
func (c *Context) own(m *filters.Message) trace.SpanContext {
	c.mu.Lock()
	defer c.mu.Unlock()
	var tid trace.TraceID
	switch m.Method() {
	case "session/prompt":
		tid = c.sessions[m.SessionID()]
	case "session/new":
		tid = c.ids.newTraceID()
		c.opening.Open(&m.Message, tid)
	case "session/load", "session/resume":
		tid = c.ids.newTraceID()
		if c.sessions == nil {
			c.sessions = map[string]trace.TraceID{}
		}
		c.sessions[m.SessionID()] = tid
	default: // initialize
		tid = c.ids.newTraceID()
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, TraceFlags: trace.FlagsSampled})
}

// answered follows the response to a session/new the filter gave a trace
// (Add): the session it opened keeps that trace.
func (c *Context) answered(m *filters.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opening.Len() == 0 || !m.IsResponse() {
		return
	}
	tid, ok := c.opening.Close(&m.Message)
	if sid, found := rawjson.GetString(m.Result(), "sessionId"); ok && found {
		if c.sessions == nil {
			c.sessions = map[string]trace.TraceID{}
		}
		c.sessions[sid] = tid
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
