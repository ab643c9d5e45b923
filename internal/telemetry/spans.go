package telemetry

import (
	"context"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// openSession starts a session's span at session/new, /load or /resume:
// in the client's trace when the request carries one, else as the root of
// a trace of its own, linked to the connection's.
func (c *Conn) openSession(m *acp.Message, r *request, t time.Time, rc trace.SpanContext, id trace.SpanID, base context.Context) {
	opts := []trace.SpanStartOption{trace.WithLinks(trace.LinkFromContext(c.ctx)),
		trace.WithAttributes(attribute.String("acp.session.opened_by", m.Method()))}
	parent := c.ctx
	if !rc.IsValid() {
		opts = append(opts, trace.WithNewRoot())
		if tid, ok := base.Value(traceIDKey{}).(trace.TraceID); ok {
			parent = withTraceID(parent, tid)
		}
	}
	ctx, span := c.start(parent, "acp.session", t, rc, id, opts...)
	s := &session{span: span, ctx: ctx}
	if sid, ok := rawjson.GetString(m.Params(), "sessionId"); ok { // load, resume
		c.register(s, sid)
	}
	r.session = s
}

// register knows s by its id from now on.
func (c *Conn) register(s *session, sid string) {
	s.id = sid
	s.span.SetAttributes(attribute.String("acp.session.id", sid))
	if old, ok := c.sessions.get(sid); ok && old != s {
		c.endSession(old, time.Time{})
	}
	if old, evicted := c.sessions.put(sid, s); evicted {
		c.endSession(old, time.Time{}) // the least recently used of too many
	}
}

// openTurn starts a prompt turn's span, under the client's span when the
// request carries one, else under its session's: an invoke_agent span, as
// the GenAI conventions have it, its conversation the ACP session.
func (c *Conn) openTurn(m *acp.Message, r *request, t time.Time, rc trace.SpanContext, id trace.SpanID) {
	sid := m.SessionID()
	parent := c.ctx
	s, _ := c.sessions.get(sid)
	if s != nil {
		parent = s.ctx
	}
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameInvokeAgent, semconv.GenAIConversationID(sid), attribute.String("acp.session.id", sid)}
	name := semconv.GenAIOperationNameInvokeAgent.Value.AsString()
	if c.agent != "" {
		name += " " + c.agent
		attrs = append(attrs, semconv.GenAIAgentName(c.agent))
	}
	if c.agentVersion != "" {
		attrs = append(attrs, semconv.GenAIAgentVersion(c.agentVersion))
	}
	if c.info.Content {
		attrs = append(attrs, attribute.String("acp.prompt.text", promptText(m.Params())))
	}
	// CLIENT: the agent is another process, which the conventions' agent
	// spans call a remote agent.
	ctx, span := c.start(parent, name, t, rc, id, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	tn := &turn{span: span, ctx: ctx, session: s}
	if s != nil {
		if s.turn != nil {
			c.endTurn(s.turn, t, "")
		}
		s.turn = tn
	}
	r.span, r.ctx, r.turn = span, ctx, tn
}

// promptText is the text blocks of a prompt, up to maxContent bytes.
func promptText(params []byte) string {
	var b strings.Builder
	prompt, _ := rawjson.Get(params, "prompt")
	_ = rawjson.Elements(prompt, func(_ int, el []byte) bool {
		if text, ok := rawjson.GetString(el, "text"); ok {
			b.WriteString(text)
		}
		return b.Len() < maxContent
	})
	return capped(b.String())
}

func capped(s string) string {
	if len(s) <= maxContent {
		return s
	}
	return strings.ToValidUTF8(s[:maxContent], "") + "…"
}

// openPermission starts a permission request's span, under its tool
// call's (or the turn's, or the session's), until the client answers.
func (c *Conn) openPermission(m *acp.Message, r *request, t time.Time) {
	parent := c.sessionCtx(m.SessionID())
	attrs := []attribute.KeyValue{attribute.String("acp.session.id", m.SessionID())}
	if u, ok := m.PermissionCall(); ok && u.ID != "" {
		attrs = append(attrs, attribute.String("acp.tool_call.id", u.ID))
		if cl := c.calls[callKey{m.SessionID(), u.ID}]; cl != nil && !cl.ended {
			parent = cl.ctx
		}
	}
	r.options = map[string]string{}
	var kinds []string
	options, _ := rawjson.Get(m.Params(), "options")
	_ = rawjson.Elements(options, func(_ int, el []byte) bool {
		id, _ := rawjson.GetString(el, "optionId")
		kind, _ := rawjson.GetString(el, "kind")
		r.options[id] = kind
		kinds = append(kinds, kind)
		return true
	})
	attrs = append(attrs, attribute.StringSlice("acp.permission.option_kinds", kinds))
	r.ctx, r.span = c.start(parent, "acp.permission_request", t, trace.SpanContext{}, trace.SpanID{}, trace.WithAttributes(attrs...))
}

// sessionCtx is where a span of session sid goes: its turn, the session,
// or the connection.
func (c *Conn) sessionCtx(sid string) context.Context {
	s, _ := c.sessions.get(sid)
	switch {
	case s == nil:
		return c.ctx
	case s.turn != nil:
		return s.turn.ctx
	}
	return s.ctx
}

// response ends the span of the request m answers; byProxy says the proxy
// answered in the place of the side the request went to, which never saw it.
func (c *Conn) response(m *acp.Message, byProxy bool) {
	r, ok := c.reqs.Close(m)
	if !ok {
		return
	}
	if byProxy && r.span != nil {
		r.span.SetAttributes(attribute.Bool("acp.answered_by_proxy", true))
	}
	switch r.method {
	case "initialize":
		c.initialized(m)
	case "session/new", "session/load", "session/resume":
		c.sessionAnswered(m, r)
	case "session/prompt":
		c.turnAnswered(m, r)
	case "session/request_permission":
		c.permissionAnswered(m, r)
	case "session/close", "session/delete":
		c.sessionClosed(m, r)
	}
}

// initialized notes what the agent says of itself.
func (c *Conn) initialized(m *acp.Message) {
	res := m.Result()
	c.span.SetAttributes(peerAttrs(res, "agentInfo", "acp.protocol_version", "acp.agent.")...)
	for _, info := range []string{"agentInfo", "info"} {
		if n, ok := rawjson.GetString(res, info, "name"); ok && n != "" {
			c.agent = capped(n)
			c.agentVersion, _ = rawjson.GetString(res, info, "version")
		}
	}
	c.failed(c.span, m)
}

// failed marks span as failed when m is an error response, with its code
// (and its message, with --otel-content), and reports whether it is.
func (c *Conn) failed(span trace.Span, m *acp.Message) bool {
	e := m.Error()
	if e == nil {
		return false
	}
	code, _ := rawjson.Get(e, "code")
	attrs := []attribute.KeyValue{semconv.ErrorTypeKey.String(string(code))}
	if n, err := strconv.ParseInt(string(code), 10, 64); err == nil {
		attrs = append(attrs, attribute.Int64("acp.error.code", n))
	} else {
		attrs[0] = semconv.ErrorTypeKey.String("_OTHER") // not a JSON-RPC code: nothing of it leaves
	}
	span.SetAttributes(attrs...)
	msg := ""
	if c.info.Content {
		msg, _ = rawjson.GetString(e, "message")
	}
	span.SetStatus(codes.Error, capped(msg))
	return true
}

func (c *Conn) sessionAnswered(m *acp.Message, r *request) {
	s := r.session
	if c.failed(s.span, m) {
		s.span.End(trace.WithTimestamp(m.Time))
		if cur, ok := c.sessions.get(s.id); ok && cur == s {
			c.sessions.delete(s.id)
		}
		return
	}
	if sid, ok := rawjson.GetString(m.Result(), "sessionId"); ok && s.id == "" {
		c.register(s, sid)
	}
	s.span.AddEvent(r.method+" answered", trace.WithTimestamp(m.Time))
}

func (c *Conn) turnAnswered(m *acp.Message, r *request) {
	stop, _ := rawjson.GetString(m.Result(), "stopReason")
	c.failed(r.span, m)
	if r.turn.ended {
		return // another prompt of its session ended it
	}
	c.endTurn(r.turn, m.Time, stop)
}

// sessionClosed ends the span of a session the client closed (or deleted),
// and forgets it.
func (c *Conn) sessionClosed(m *acp.Message, r *request) {
	s, ok := c.sessions.get(r.sid)
	if !ok || m.Error() != nil {
		return
	}
	c.sessions.delete(r.sid)
	c.endSession(s, m.Time)
}

// endTurn ends a turn's calls and then the turn, at t, with its stop
// reason.
func (c *Conn) endTurn(tn *turn, t time.Time, stop string) {
	if tn.ended {
		return
	}
	tn.ended = true
	if tn.session != nil && tn.session.turn == tn {
		tn.session.turn = nil
	}
	for cl := range tn.calls {
		c.forget(cl, t)
	}
	tn.span.SetAttributes(attribute.String("acp.prompt.stop_reason", stop),
		attribute.Int64("acp.messages_before", tn.counts[0].Messages), attribute.Int64("acp.bytes_before", tn.counts[0].Bytes),
		attribute.Int64("acp.messages_after", tn.counts[1].Messages), attribute.Int64("acp.bytes_after", tn.counts[1].Bytes))
	tn.span.End(trace.WithTimestamp(t))
}

func (c *Conn) permissionAnswered(m *acp.Message, r *request) {
	attrs := []attribute.KeyValue{attribute.Int64("acp.permission.wait_ms", m.Time.Sub(r.start).Milliseconds())}
	res := m.Result()
	outcome, _ := rawjson.GetString(res, "outcome", "outcome")
	attrs = append(attrs, attribute.String("acp.permission.outcome", outcome))
	if id, ok := rawjson.GetString(res, "outcome", "optionId"); ok {
		attrs = append(attrs, attribute.String("acp.permission.option_id", id), attribute.String("acp.permission.option_kind", r.options[id]))
	}
	r.span.SetAttributes(attrs...)
	c.failed(r.span, m)
	r.span.End(trace.WithTimestamp(m.Time))
}

// endSession ends a session's turn and span at t (zero: its last
// message's time, which is the connection's).
func (c *Conn) endSession(s *session, t time.Time) {
	if t.IsZero() {
		t = c.last
	}
	if s.turn != nil {
		c.endTurn(s.turn, t, "")
	}
	s.span.End(trace.WithTimestamp(t))
}
