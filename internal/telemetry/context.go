package telemetry

import (
	"bytes"
	"context"

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
// message, and a request without a traceparent gets none.
type Context struct{ ids *chosenIDs }

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
		return "passed the client's traceparent on with the proxy's span as the parent"
	}
	return "stood aside: no traceparent from the client"
}

var quotedTraceparent = []byte(`"traceparent"`)

func (c *Context) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir != acp.ClientToAgent || !bytes.Contains(m.Raw, quotedTraceparent) || !m.IsRequest() || !spanned(m.Method()) {
		return nil
	}
	parent := remote(m.Params())
	if !parent.IsValid() {
		return nil
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
