package telemetry

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// maxContent bounds each piece of message text a span holds with
// --otel-content.
const maxContent = 4096

// ConnInfo is what a connection's span says of the proxy.
type ConnInfo struct {
	Agent []string // the agent's command line
	Args  []string // the proxy's own arguments
	// Chain is the relay's filter chain, whose figures end the span
	// (nil: no filters).
	Chain   *filters.Chain
	Content bool // --otel-content: the user's text in spans
}

// Conn makes the spans of one connection from its messages. Only the
// tap's goroutine uses it.
type Conn struct {
	tracer trace.Tracer
	info   ConnInfo
	// traceContext: a client's traceparent is read (OTEL_PROPAGATORS).
	traceContext bool
	roots        *unsampledRoots // the provider's
	span         trace.Span      // nil until the first message
	ctx          context.Context
	last         time.Time
	counts       [2][2]acp.Count // by direction: before, after the filters
	reqs         acp.Requests[*request]
	sessions     *recent[*session] // by id, the most recent maxSessions
	calls        map[callKey]*call
	// finished is the calls the agent ended, oldest first, kept for a
	// filter's note that may follow (shell-to-patch's "edit verified"):
	// past maxFinished the oldest is ended and forgotten.
	finished []*call
	// agent is gen_ai.agent.name: the name the agent gives in initialize,
	// else its program's; agentVersion, the version it gives.
	agent, agentVersion string
}

// request is a request followed to its response.
type request struct {
	method  string
	start   time.Time
	span    trace.Span
	ctx     context.Context
	session *session          // session/new, /load, /resume: the session it opens
	turn    *turn             // session/prompt: the turn it starts
	sid     string            // session/close: the session it closes
	options map[string]string // a permission request's: optionId → kind
}

type session struct {
	id   string
	span trace.Span
	ctx  context.Context
	turn *turn
}

type turn struct {
	session *session // nil: a turn of a session the proxy did not see open
	ended   bool
	span    trace.Span
	ctx     context.Context
	calls   map[*call]bool // its calls not yet forgotten
	counts  [2]acp.Count   // agent→client: before, after the filters
}

type callKey struct{ session, id string }

type call struct {
	key           callKey
	turn          *turn // nil: a call outside a turn
	span          trace.Span
	ctx           context.Context
	kind, status  string
	before, after acp.Count
	final         time.Time // when the agent first said it ended
	ended         bool
	notes         map[string]bool
	tool, program string // gen_ai.tool.name, acp.tool_call.program
	exit          int64  // the exit code, when exited
	exited        bool
}

// NewConn is a connection whose spans p exports.
func (p *Provider) NewConn(info ConnInfo) *Conn {
	c := &Conn{tracer: p.Tracer("github.com/acp-proxy/acp-proxy"), info: info, traceContext: p.traceContext, roots: p.roots,
		reqs: acp.Requests[*request]{Max: maxInFlight}, sessions: newRecent[*session](maxSessions), calls: map[callKey]*call{}}
	if len(info.Agent) > 0 {
		c.agent = filepath.Base(info.Agent[0])
	}
	return c
}

// start starts a span at t under parent, as a child of the remote span
// context rc when it is valid (with the ID the Context filter chose for
// it, when it chose one).
func (c *Conn) start(parent context.Context, name string, t time.Time, rc trace.SpanContext, id trace.SpanID, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if rc.IsValid() {
		parent = trace.ContextWithRemoteSpanContext(context.Background(), rc)
	}
	if id.IsValid() {
		parent = withSpanID(parent, id)
	}
	_, span := c.tracer.Start(parent, name, append(opts, trace.WithTimestamp(t))...)
	// The IDs asked for are this span's alone: the context its children
	// start in holds the span and nothing else.
	return trace.ContextWithSpan(context.Background(), span), span
}

// own is the IDs the Context filter gave the proxy's span of a request
// that carried no trace context (--otel-propagate): its trace, for a span
// that starts one, and its span ID.
func own(ctx context.Context, ev event, rc trace.SpanContext) (context.Context, trace.SpanID) {
	sc := addedContext(rc, ev.out)
	if !sc.IsValid() {
		return ctx, trace.SpanID{}
	}
	return withTraceID(ctx, sc.TraceID()), sc.SpanID()
}

// handle makes what ev means of the spans.
func (c *Conn) handle(ev event) {
	if !ev.t.IsZero() {
		c.last = ev.t
	}
	switch ev.kind {
	case passed:
		c.counts[ev.dir][0].Line(len(ev.line))
		c.counts[ev.dir][1].Messages += ev.afterMessages()
		c.counts[ev.dir][1].Bytes += int64(ev.outSize)
		c.message(ev)
	case added, released:
		c.counts[ev.dir][1].Line(len(ev.line))
		c.addedLine(ev)
	case long:
		c.counts[ev.dir][0].Messages++
		c.counts[ev.dir][0].Bytes += int64(ev.outSize)
		c.counts[ev.dir][1].Messages++
		c.counts[ev.dir][1].Bytes += int64(ev.outSize)
	case noted:
		c.note(ev.note)
	case counted:
		c.counts[ev.dir][0].Plus(ev.counts[0])
		c.counts[ev.dir][1].Plus(ev.counts[1])
		c.ensure(ev.t, trace.SpanContext{}, trace.SpanID{})
		if s, _ := c.sessions.get(ev.sid); s != nil && s.turn != nil {
			s.turn.counts[0].Plus(ev.counts[0])
			s.turn.counts[1].Plus(ev.counts[1])
		}
		if cl := c.calls[callKey{ev.sid, ev.call}]; ev.call != "" && cl != nil && !cl.ended {
			cl.before.Plus(ev.counts[0])
			cl.after.Plus(ev.counts[1])
		}
	}
}

// message is a line read from either side.
func (c *Conn) message(ev event) {
	m := acp.NewMessage(ev.dir, ev.line, ev.t)
	if !m.Valid() {
		return
	}
	if m.Dir != acp.ClientToAgent || m.Method() != "initialize" { // which may name a parent
		c.ensure(ev.t, trace.SpanContext{}, trace.SpanID{})
	}
	switch {
	case m.IsRequest():
		c.request(m, ev)
	case m.IsResponse():
		c.response(m, false)
	case m.Method() == "session/update":
		c.update(m, ev)
	}
}

// ensure starts the connection's span at the first message, as a child of
// rc (the initialize request's traceparent) when valid.
func (c *Conn) ensure(t time.Time, rc trace.SpanContext, id trace.SpanID) {
	c.ensureIn(context.Background(), t, rc, id)
}

// ensureIn is ensure, with the IDs base asks for (see own).
func (c *Conn) ensureIn(base context.Context, t time.Time, rc trace.SpanContext, id trace.SpanID) {
	if c.span != nil {
		return
	}
	opts := []trace.SpanStartOption{trace.WithAttributes(c.commandAttrs()...)}
	if !rc.IsValid() {
		opts = append(opts, trace.WithNewRoot())
	}
	c.ctx, c.span = c.start(base, "acp.connection", t, rc, id, opts...)
}

// commandAttrs say how the proxy runs: the agent's program and the proxy's
// flags, by name; their whole command lines (which may hold paths and
// keys) only with --otel-content.
func (c *Conn) commandAttrs() []attribute.KeyValue {
	var flags []string
	for _, a := range c.info.Args {
		if a == "--" {
			break
		}
		if name, _, _ := strings.Cut(a, "="); strings.HasPrefix(name, "-") {
			flags = append(flags, name)
		}
	}
	attrs := []attribute.KeyValue{attribute.String("acp.agent.program", c.agent), attribute.StringSlice("acp.proxy.flags", flags)}
	if c.info.Content {
		attrs = append(attrs, attribute.StringSlice("acp.agent.command", c.info.Agent), attribute.StringSlice("acp.proxy.args", c.info.Args))
	}
	return attrs
}

// parentOf is the client's trace context on request m, and the span ID the
// Context filter gave the proxy's span for it.
func (c *Conn) parentOf(m *acp.Message, ev event) (trace.SpanContext, trace.SpanID) {
	if !c.traceContext {
		return trace.SpanContext{}, trace.SpanID{}
	}
	rc := remote(m.Params())
	if !rc.IsValid() || len(ev.out) != 1 {
		return rc, trace.SpanID{}
	}
	return rc, spliced(rc, ev.out[0])
}

// request follows a request of either side to its response.
func (c *Conn) request(m *acp.Message, ev event) {
	rc, id := c.parentOf(m, ev)
	base := context.Background()
	if c.traceContext { // else no traceparent it carries is the proxy's
		var ownID trace.SpanID
		if base, ownID = own(base, ev, rc); ownID.IsValid() {
			id = ownID
		}
		if tid, ok := c.roots.take(m); ok && !rc.IsValid() && !ownID.IsValid() {
			base = withTraceID(base, tid) // a root the Context filter did not sample
		}
	}
	method := m.Method()
	if method == "initialize" && m.Dir == acp.ClientToAgent {
		c.ensureIn(base, ev.t, rc, id)
		c.initialize(m)
		return
	}
	r := &request{method: method, start: ev.t}
	switch {
	case m.Dir == acp.ClientToAgent && (method == "session/new" || method == "session/load" || method == "session/resume"):
		c.openSession(m, r, ev.t, rc, id, base)
	case m.Dir == acp.ClientToAgent && method == "session/prompt":
		c.openTurn(m, r, ev.t, rc, id)
	case m.Dir == acp.AgentToClient && method == "session/request_permission":
		c.openPermission(m, r, ev.t)
	case m.Dir == acp.ClientToAgent && (method == "session/close" || method == "session/delete"):
		r.sid = m.SessionID()
	default:
		return
	}
	c.reqs.Open(m, r)
}

// initialize notes what the client says of itself.
func (c *Conn) initialize(m *acp.Message) {
	p := m.Params()
	c.reqs.Open(m, &request{method: "initialize"})
	c.span.SetAttributes(peerAttrs(p, "clientInfo", "acp.client.protocol_version", "acp.client.")...)
}

// peerAttrs are what a peer's initialize says of it: the protocol version
// it names (as versionAttr) and its name and version, under infoKey (v1)
// or "info" (v2), as prefix+"name" and prefix+"version".
func peerAttrs(obj []byte, infoKey, versionAttr, prefix string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{}
	if v, ok := rawjson.Get(obj, "protocolVersion"); ok {
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			attrs = append(attrs, attribute.Int64(versionAttr, n)) // a number, as ACP's versions are
		} else {
			attrs = append(attrs, attribute.String(versionAttr, capped(string(v))))
		}
	}
	for _, info := range []string{infoKey, "info"} {
		if n, ok := rawjson.GetString(obj, info, "name"); ok {
			attrs = append(attrs, attribute.String(prefix+"name", n))
		}
		if v, ok := rawjson.GetString(obj, info, "version"); ok {
			attrs = append(attrs, attribute.String(prefix+"version", v))
		}
	}
	return attrs
}
