package telemetry

import (
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// update is a session/update from the agent: counted in its turn, and a
// tool call's read into its span.
func (c *Conn) update(m *acp.Message, ev event) {
	sid := m.SessionID()
	if s, _ := c.sessions.get(sid); s != nil && s.turn != nil {
		s.turn.counts[0].Line(len(ev.line))
		s.turn.counts[1].Messages += ev.afterMessages()
		s.turn.counts[1].Bytes += int64(ev.outSize)
	}
	if !m.IsToolUpdate() { // a look at the kind alone: most updates are text chunks
		return
	}
	u, ok := m.ToolUpdate()
	if !ok || u.ID == "" {
		return
	}
	cl := c.callFor(sid, u.ID, ev.t)
	if cl.ended {
		return
	}
	cl.before.Line(len(ev.line))
	cl.after.Messages += int64(max(len(ev.out), 1))
	cl.after.Bytes += int64(ev.outSize)
	c.read(cl, &u, ev.t)
}

// callFor is the call id of session sid, started at t if new: under the
// session's turn. It is an execute_tool span, as the GenAI conventions
// have it (INTERNAL: the tool runs inside the agent's invocation); its
// name gets the tool's once an update names it.
func (c *Conn) callFor(sid, id string, t time.Time) *call {
	k := callKey{sid, id}
	if cl := c.calls[k]; cl != nil {
		return cl
	}
	if len(c.calls) >= maxCalls {
		c.trimCalls(t)
	}
	cl := &call{key: k, notes: map[string]bool{}}
	cl.ctx, cl.span = c.start(c.sessionCtx(sid), semconv.GenAIOperationNameExecuteTool.Value.AsString(), t, trace.SpanContext{}, trace.SpanID{},
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(semconv.GenAIOperationNameExecuteTool,
			semconv.GenAIToolCallID(id), semconv.GenAIToolTypeKey.String(toolType), semconv.GenAIConversationID(sid),
			attribute.String("acp.session.id", sid), attribute.String("acp.tool_call.id", id)))
	c.calls[k] = cl
	if s, _ := c.sessions.get(sid); s != nil && s.turn != nil {
		cl.turn = s.turn
		if s.turn.calls == nil {
			s.turn.calls = map[*call]bool{}
		}
		s.turn.calls[cl] = true
	}
	return cl
}

// maxFinished bounds the calls kept once the agent ended them: the memory
// a turn holds stays bounded whatever number of calls it makes.
const maxFinished = 64

// retire keeps cl, which the agent just ended, among the finished calls,
// and ends and forgets the oldest when there are too many.
func (c *Conn) retire(cl *call) {
	c.finished = append(c.finished, cl)
	if len(c.finished) > maxFinished {
		old := c.finished[0]
		c.finished[0] = nil
		c.finished = c.finished[1:]
		c.forget(old, old.final)
	}
}

// forget ends cl's span (at t, unless the agent ended it) and forgets it.
func (c *Conn) forget(cl *call, t time.Time) {
	c.endCall(cl, t)
	if c.calls[cl.key] == cl {
		delete(c.calls, cl.key)
	}
	if cl.turn != nil {
		delete(cl.turn.calls, cl)
	}
}

// toolType is gen_ai.tool.type of an ACP tool call: the agent runs it (or
// has the client run it for it, as it decides), an "extension" in the
// conventions' words, not a "function" the client runs for the model.
const toolType = "extension"

// maxCalls bounds the calls followed at once: a turn's calls are dropped
// when it ends, but calls outside a turn (an agent's, of a session the proxy
// did not see open) have no such end.
const maxCalls = 4096

// trimCalls ends the spans of the calls the agent ended and forgets them;
// if that leaves too many, it ends and forgets all of them (at t).
func (c *Conn) trimCalls(t time.Time) {
	for _, cl := range c.calls {
		if !cl.final.IsZero() {
			c.forget(cl, t)
		}
	}
	if len(c.calls) < maxCalls {
		return
	}
	for _, cl := range c.calls {
		c.forget(cl, t)
	}
}

// read takes what an update of the call says: kind, the tool's name,
// status, the exit status of its terminal, the program its command runs;
// its title and input only with --otel-content (they hold the user's
// text: command lines, paths).
func (c *Conn) read(cl *call, u *acp.ToolUpdate, t time.Time) {
	var attrs []attribute.KeyValue
	if u.Kind != "" && u.Kind != cl.kind {
		cl.kind = u.Kind
		attrs = append(attrs, attribute.String("acp.tool_call.kind", u.Kind))
	}
	if name := toolName(u); name != "" && name != cl.tool && u.Others > 0 { // not an update of output alone
		cl.tool = name
		cl.span.SetName(semconv.GenAIOperationNameExecuteTool.Value.AsString() + " " + name)
		attrs = append(attrs, semconv.GenAIToolName(name))
	}
	if u.Status != "" {
		cl.status = u.Status
		attrs = append(attrs, attribute.String("acp.tool_call.status", u.Status))
		if u.Final() && cl.final.IsZero() {
			cl.final = t
			defer c.retire(cl) // once this update is read
		}
	}
	attrs = append(attrs, cl.exitStatus(u)...)
	if prog := programName(u.RawInput); prog != "" && prog != cl.program {
		cl.program = prog
		attrs = append(attrs, attribute.String("acp.tool_call.program", prog))
	}
	if c.info.Content {
		attrs = append(attrs, contentAttrs(u)...)
	}
	cl.span.SetAttributes(attrs...)
}

// contentAttrs are the user's text an update holds: its title and its
// input (gen_ai.tool.call.arguments, which the conventions make opt-in).
func contentAttrs(u *acp.ToolUpdate) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if u.Title != "" {
		attrs = append(attrs, attribute.String("acp.tool_call.title", capped(u.Title)))
	}
	if len(u.RawInput) > 0 && string(u.RawInput) != "{}" {
		in := capped(string(u.RawInput))
		attrs = append(attrs, attribute.String("acp.tool_call.raw_input", in), semconv.GenAIToolCallArgumentsKey.String(in))
	}
	return attrs
}

// toolName is the tool's name as the agent calls it, where it says
// (claude-agent-acp's _meta.claudeCode.toolName: "Bash", "Write"), else
// the call's ACP kind ("execute", "edit").
func toolName(u *acp.ToolUpdate) string {
	if name, ok := rawjson.GetString(u.Meta, "claudeCode", "toolName"); ok && name != "" {
		return capped(name)
	}
	return u.Kind
}

// exitStatus is the exit code (an integer) and signal the update reports:
// the terminal extension's terminal_exit, or rawOutput's exit code.
func (cl *call) exitStatus(u *acp.ToolUpdate) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	code, signal := u.Term.ExitStatus()
	if code == nil && signal == nil {
		code, _ = exitCode(u.RawOutput)
	}
	if n, err := strconv.ParseInt(string(code), 10, 64); err == nil {
		cl.exit, cl.exited = n, true
		attrs = append(attrs, attribute.Int64("acp.tool_call.exit_code", n))
	}
	if s, err := rawjson.Unquote(signal); err == nil && s != "" {
		attrs = append(attrs, attribute.String("acp.tool_call.exit_signal", s))
	}
	return attrs
}

// exitCode is the exit code an agent reports in rawOutput (codex-acp's
// exit_code, others' exitCode), when it reports one as a number.
func exitCode(rawOutput []byte) ([]byte, bool) {
	for _, k := range []string{"exit_code", "exitCode"} {
		if v, ok := rawjson.Get(rawOutput, k); ok && len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
			return v, true
		}
	}
	return nil, false
}

// addedLine is a line the proxy wrote on its own: a tool call's output a
// coalescing filter released, an edit taken back, counted for its call; an
// answer the proxy gave in the client's place (the policy's to a permission
// request) ends the request's span, marked as the proxy's.
func (c *Conn) addedLine(ev event) {
	m := acp.NewMessage(ev.dir, ev.line, ev.t)
	if !m.Valid() {
		return
	}
	if m.IsResponse() {
		c.response(m, true) // the side the request went to never saw it
		return
	}
	sid := m.SessionID()
	if s, _ := c.sessions.get(sid); s != nil && s.turn != nil {
		s.turn.counts[1].Line(len(ev.line))
	}
	if u, ok := m.ToolUpdate(); ok && u.ID != "" {
		if cl := c.calls[callKey{sid, u.ID}]; cl != nil && !cl.ended {
			cl.after.Line(len(ev.line))
		}
	}
}

// note is a filter's action, an event on the span of its call (on the
// connection's when it names none): "shell-to-patch: edit shown".
func (c *Conn) note(n filters.Note) {
	attrs := []attribute.KeyValue{attribute.String("acp.filter", n.Filter)}
	if n.Files > 0 {
		attrs = append(attrs, attribute.Int("acp.files", n.Files))
	}
	if c.info.Content && n.Detail != "" {
		attrs = append(attrs, attribute.String("acp.detail", capped(n.Detail)))
	}
	opts := []trace.EventOption{trace.WithTimestamp(n.Time), trace.WithAttributes(attrs...)}
	name := n.Filter + ": " + n.Event
	if n.ToolCallID == "" {
		c.ensure(n.Time, trace.SpanContext{}, trace.SpanID{})
		c.span.AddEvent(name, opts...)
		return
	}
	cl := c.callFor(n.SessionID, n.ToolCallID, n.Time)
	cl.span.AddEvent(name, opts...)
	cl.notes[n.Filter+": "+n.Event] = true
}

// endCall ends a call's span: at its final update, or at t when it had
// none.
func (c *Conn) endCall(cl *call, t time.Time) {
	if cl.ended {
		return
	}
	cl.ended = true
	end := t
	if !cl.final.IsZero() {
		end = cl.final
	}
	attrs := []attribute.KeyValue{
		attribute.Int64("acp.tool_call.messages_before", cl.before.Messages), attribute.Int64("acp.tool_call.bytes_before", cl.before.Bytes),
		attribute.Int64("acp.tool_call.messages_after", cl.after.Messages), attribute.Int64("acp.tool_call.bytes_after", cl.after.Bytes),
		attribute.Int64("acp.tool_call.duration_ms", end.Sub(startOf(cl.span)).Milliseconds()),
	}
	for _, k := range []struct{ note, attr string }{
		{"shell-to-patch: edit shown", "acp.shell_to_patch.shown"},
		{"shell-to-patch: edit verified", "acp.shell_to_patch.verified"},
		{"shell-to-patch: edit taken back", "acp.shell_to_patch.taken_back"},
	} {
		if cl.notes[k.note] {
			attrs = append(attrs, attribute.Bool(k.attr, true))
		}
	}
	if cl.status != "" && cl.final.IsZero() {
		attrs = append(attrs, attribute.Bool("acp.tool_call.unfinished", true))
	}
	cl.span.SetAttributes(attrs...)
	if cl.status == "failed" {
		cl.failed()
	}
	cl.span.End(trace.WithTimestamp(end))
}

// failed marks the span of a call the agent reports failed as an error,
// with its exit code when it has one (error.type: the code, as HTTP's
// status code is; else "failed").
func (cl *call) failed() {
	desc, typ := "tool call failed", "failed"
	if cl.exited {
		typ = strconv.FormatInt(cl.exit, 10)
		desc = "tool call failed: exit code " + typ
	}
	cl.span.SetAttributes(semconv.ErrorTypeKey.String(typ))
	cl.span.SetStatus(codes.Error, desc)
}

// startOf is when span started, for the SDK's spans (zero otherwise).
func startOf(span trace.Span) time.Time {
	if ro, ok := span.(interface{ StartTime() time.Time }); ok {
		return ro.StartTime()
	}
	return time.Time{}
}

// finish ends every span still open when the connection ended, the
// connection's last, with its figures: messages and bytes per direction
// before and after the filters, each filter's (with what it says it did),
// and the messages the tap had to leave out.
func (c *Conn) finish(dropped int64) {
	if c.span == nil {
		return
	}
	for _, cl := range c.calls {
		c.endCall(cl, c.last)
	}
	c.sessions.each(func(_ string, s *session) { c.endSession(s, c.last) })
	var attrs []attribute.KeyValue
	for d := range 2 {
		dir := acp.Direction(d).String()
		attrs = append(attrs,
			attribute.Int64("acp."+dir+".messages_before", c.counts[d][0].Messages), attribute.Int64("acp."+dir+".bytes_before", c.counts[d][0].Bytes),
			attribute.Int64("acp."+dir+".messages_after", c.counts[d][1].Messages), attribute.Int64("acp."+dir+".bytes_after", c.counts[d][1].Bytes))
	}
	attrs = append(attrs, attribute.Int64("acp.otel.messages_left_out", dropped))
	c.span.SetAttributes(attrs...)
	c.filterEvents()
	c.span.End(trace.WithTimestamp(c.last))
}

// filterEvents are each filter's figures, as events on the connection's
// span: its flag, what it took in and gave out, and what it says it did
// or why it stood aside (the proxy's words, no message text).
func (c *Conn) filterEvents() {
	for _, f := range c.info.Chain.Stats() {
		attrs := []attribute.KeyValue{attribute.String("acp.filter", f.Name), attribute.String("acp.filter.flag", f.Flag)}
		for d := range 2 {
			dir := acp.Direction(d).String()
			attrs = append(attrs, attribute.Int64("acp."+dir+".bytes_in", f.In[d].Bytes), attribute.Int64("acp."+dir+".bytes_out", f.Out[d].Bytes))
			if f.Notes[d] != "" {
				attrs = append(attrs, attribute.String("acp."+dir+".note", f.Notes[d]))
			}
		}
		for k, v := range f.Counts {
			attrs = append(attrs, attribute.Int64("acp.filter."+k, v))
		}
		c.span.AddEvent("filter "+f.Flag, trace.WithTimestamp(c.last), trace.WithAttributes(attrs...))
	}
}
