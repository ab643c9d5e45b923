package output

import (
	"bytes"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// TerminalOutput is the --terminal-output filter.
//
// Client→agent, it adds params.clientCapabilities._meta.terminal_output:
// true to initialize, so agents stream command output as the extension's
// _meta.terminal_output deltas (docs/agents.md) instead of O(n²) snapshots or
// nothing until the end. Every other byte of the request is kept; a request
// that already has the key (whatever its value), or where something on the
// path is not an object, is left alone.
//
// Agent→client, what happens depends on what the client itself advertised
// (capabilities.Client, recorded before any filter ran):
//
//   - A client without the extension is shown the output in plain ACP: the
//     agent's {type:"terminal"} content items for the extension's terminals
//     and the terminal_info / terminal_output / terminal_output_delta /
//     terminal_exit _meta keys are removed (other _meta keys stay; a _meta
//     left empty is removed), and the streamed output becomes a text
//     content item fenced like the agent's own fallback, sent live under
//     the coalescing policy (coalesce.go) as a live tail of at most
//     LiveTailBytes. The update that ends the call carries the complete
//     output, from rawOutput when that holds more than was streamed, unless
//     the client already shows it whole. A call that stops being followed
//     otherwise (its turn ends, it is evicted) is sent whole too, and its
//     later output is appended to what the client shows (retired.go).
//   - A client with the extension gets the messages as they are, except
//     that output the agent reported in rawOutput but never streamed (codex
//     stops after 10,000 deltas) is sent as one more delta before the end,
//     and that streamed output is put under the keys the client reads
//     (clientKeys).
//
// Both keys append, except that a terminal_output of a call that already
// streamed under terminal_output_delta replaces the terminal's output
// (docs/terminal-output.md).
//   - Before initialize is seen, nothing is changed.
//
// Held output is sent before any other message of the direction, so a
// call's status change and the prompt response never overtake its output.
type TerminalOutput struct {
	// Interval is the coalescing interval; zero means
	// DefaultCoalesceInterval, NoCoalescing none.
	Interval time.Duration
	// MaxBytes bounds the output kept per call (to translate it, or to
	// complete it from rawOutput), so a command that never stops printing
	// cannot grow the proxy without bound; zero means
	// DefaultMaxCallOutputBytes. Past it a client without the extension is
	// told what is not shown, and the final update still shows the agent's
	// complete rawOutput; for a client with it, the rest is hashed.
	MaxBytes int64
	// LiveTailBytes bounds the output shown per update to a client without
	// the extension while a command runs (a live tail, see stream.live);
	// zero means DefaultLiveTailBytes.
	LiveTailBytes int
	// OnlyUnasked: the filter asks the agent for nothing (initialize is
	// left alone) and shows only the terminal output an agent sends
	// unasked, as codex-acp 2.x streams terminal_output_delta to every
	// client, in the form the client reads. --deltas turns it on when
	// --terminal-output is off.
	OnlyUnasked bool

	coalescer[termCall, *termCall]
}

var (
	_ filters.Filter = (*TerminalOutput)(nil)
	_ filters.Timed  = (*TerminalOutput)(nil)
)

// termCall is what TerminalOutput keeps for one tool call.
type termCall struct {
	session, id string
	tids        []string // the extension's terminals announced for the call
	fence       fence

	out stream // the output streamed so far, up to MaxBytes kept

	// Translation for a client without the extension.
	template []byte // the last content the agent sent with one of tids in it
	held     slot   // held.held: out grew since it was last sent

	// What the client shows of out, in the template: a live tail of it,
	// or all of it.
	tailed, whole bool

	// deltas: the agent streamed the call under terminal_output_delta, so
	// a terminal_output of the call replaces the terminal's output
	// (claude-agent-acp ≥ 0.100) rather than appending to it.
	deltas bool

	// fromStart: the filter followed the call from its tool_call (or
	// revived it), so it knows what the client was shown of it. A call it
	// met later (forgotten while it streamed) is never completed from
	// rawOutput: the client may show that output already.
	fromStart bool
	// recovered is the output (JSON string bytes) the client was shown from
	// the end's rawOutput past what the agent had streamed, that no later
	// chunk has brought yet: a late chunk that holds it is not shown again.
	recovered []byte

	// For a client with the extension: announced, a content item showed
	// the client one of the call's terminals; unshown, the call streamed
	// output before any did (codex-acp 2.x's read and list commands), so
	// the client could not show it in a terminal, and the call is shown
	// to it as to a client without the extension, to its end.
	announced, unshown bool

	limit int64 // the filter's MaxBytes
}

func (c *termCall) slot() *slot           { return &c.held }
func (c *termCall) key() (string, string) { return c.session, c.id }
func (c *termCall) endedBudget() int64    { return c.limit }
func (c *termCall) size() int             { return len(c.out.kept) + len(c.out.recent) + len(c.template) }

// heldUpdate is a content update showing the output.
func (c *termCall) heldUpdate() ([]byte, int, error) {
	text := c.out.live()
	msg, err := c.contentUpdate(text, c.out.total <= c.out.budget())
	return msg, len(text), err
}

// contentUpdate is a content update showing text (JSON string bytes) in
// the template, all of out or a live tail of it.
func (c *termCall) contentUpdate(text []byte, all bool) ([]byte, error) {
	content, err := renderContent(c.template, c.ours, c.fence.quoteEscaped(text))
	if err != nil {
		return nil, err
	}
	c.tailed, c.whole = !all, all
	return buildToolUpdate(c.session, c.id, "content", content), nil
}

// wholeUpdate shows all of the output the call holds, when the client was
// sent a live tail of it, or output is held.
func (c *termCall) wholeUpdate() ([]byte, error) {
	if c.out.total == 0 || !c.held.held && !c.tailed {
		return nil, nil
	}
	return c.contentUpdate(c.out.text(), true)
}

func (c *termCall) ours(tid string) bool {
	for _, t := range c.tids {
		if t == tid {
			return true
		}
	}
	return false
}

// note records the terminals the extension's keys name.
func (c *termCall) note(tm acp.TermMeta) {
	for _, tid := range tm.TerminalIDs() {
		if tid != "" && !c.ours(tid) && len(c.tids) < 8 {
			c.tids = append(c.tids, tid)
		}
	}
}

// outputChunk is what one update streams, as JSON string bytes: output under
// terminal_output, which replaces the terminal's output when replace is
// set, and delta under terminal_output_delta, appended after it.
type outputChunk struct {
	output, delta []byte
	replace       bool
}

// streamed reads what tm streams for the call.
func (c *termCall) streamed(tm acp.TermMeta) outputChunk {
	var k outputChunk
	k.output, k.delta = acp.RawData(tm)
	k.replace = tm.Output != nil && c.deltas
	if tm.OutputDelta != nil {
		c.deltas = true
	}
	return k
}

// apply adds k to the call's output.
func (c *termCall) apply(k outputChunk, limit int64, count bool) {
	if k.replace {
		c.out.reset()
	}
	c.out.add(k.output, limit, count)
	c.out.add(k.delta, limit, count)
}

// Name implements filters.Filter.
func (f *TerminalOutput) Name() string { return "terminal-output" }

func (f *TerminalOutput) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return DefaultMaxCallOutputBytes
}

// Apply implements filters.Filter.
func (f *TerminalOutput) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir == acp.ClientToAgent {
		if m.Method() == "initialize" && !f.OnlyUnasked {
			if raw, ok := injectTerminalOutput(m); ok {
				return out.Emit(m.Dir, raw)
			}
		}
		return nil
	}
	mode := f.client.load(m)
	if mode == clientUnknown {
		return nil
	}
	f.announced(m)
	if f.calls.Len() == 0 && !mentions(m.Raw, quotedTerminal) {
		return f.forward(m, out) // no call streams, and this line is not about one
	}
	u, isTool := m.ToolUpdate()
	if isTool && u.Kind != "" && u.Kind != "execute" && f.calls.Get(m.SessionID(), u.ID) != nil {
		// The call is no longer a command (shell-to-patch shows it as an
		// edit): it has no terminal to complete or translate any more.
		if err := f.flush(m.Time, out, nil); err != nil {
			return err
		}
		f.calls.Remove(m.SessionID(), u.ID)
		return out.Emit(m.Dir, m.Raw)
	}
	switch {
	case isTool && mode == clientTranslated:
		return f.translateUpdate(m, &u, out)
	case isTool:
		return f.pass(m, &u, out)
	case mode == clientTranslated && m.Method() == "session/request_permission":
		return f.translatePermission(m, out)
	}
	return f.forward(m, out)
}

// injectTerminalOutput returns the initialize request with
// clientCapabilities._meta.terminal_output set to true. That is the ACP v1
// shape: a request for another protocol version, or with v2's
// "capabilities" in place of "clientCapabilities", is left alone (an agent
// serving v2 gives v2 clients display terminals, not this extension).
func injectTerminalOutput(m *filters.Message) ([]byte, bool) {
	params := m.Params()
	if !m.IsRequest() || len(params) == 0 || params[0] != '{' {
		return nil, false
	}
	if v, ok := rawjson.Get(params, "protocolVersion"); ok && string(v) != "1" {
		return nil, false
	}
	caps := "clientCapabilities"
	if _, ok := rawjson.Get(params, caps); !ok {
		if _, v2 := rawjson.Get(params, "capabilities"); v2 {
			return nil, false
		}
	}
	if _, ok := rawjson.Get(params, caps, "_meta", acp.MetaTerminalOutput); ok {
		return nil, false
	}
	raw, err := rawjson.Set(m.Raw, []byte("true"), "params", caps, "_meta", acp.MetaTerminalOutput)
	return raw, err == nil
}

// call returns the state of u's call: the one followed, or an ended one
// followed again (a later update of a call that ended, or was evicted, or
// whose turn is over: its output is appended to what the client shows),
// or a new one; a full list first retires its oldest call.
func (f *TerminalOutput) call(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) (*termCall, error) {
	sid := m.SessionID()
	if c := f.calls.Get(sid, u.ID); c != nil {
		return c, nil
	}
	if u.SessionUpdate == "tool_call" {
		f.ended.drop(sid, u.ID) // a new call with the id of one that ended
	} else if c, err := f.revive(sid, u.ID, m.Time, out); c != nil || err != nil {
		return c, err
	}
	c := &termCall{session: sid, id: u.ID, fence: fenceFor(m), out: stream{tail: f.LiveTailBytes}, limit: f.maxBytes(),
		fromStart: u.SessionUpdate == "tool_call"}
	return c, f.add(c.session, u.ID, c, m.Time, out)
}

// finish stops following c, whose final update went out, keeping it among
// the ended calls.
func (f *TerminalOutput) finish(c *termCall) {
	f.calls.Remove(c.session, c.id)
	f.ended.keep(c)
}

// track returns the state of u's call and the output u streams, or a nil
// call when u is about no terminal the filter follows. The output leaves
// out what the client was shown from rawOutput already (recovered);
// trimmed says that it did.
func (f *TerminalOutput) track(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) (c *termCall, tm acp.TermMeta, k outputChunk, trimmed bool, err error) {
	tm = u.Term
	if !tm.Any() && f.calls.Get(m.SessionID(), u.ID) == nil {
		return nil, tm, k, false, nil
	}
	if c, err = f.call(m, u, out); err != nil {
		return nil, tm, k, false, err
	}
	c.note(tm)
	k = c.streamed(tm)
	return c, tm, k, c.consumeRecovered(&k), nil
}

// consumeRecovered takes out of k the output the client was shown from
// rawOutput already (c.recovered), and reports whether it took any. The
// agent escapes its stream and its rawOutput alike, so the bytes compare
// as sent. A chunk that differs ends the matching.
func (c *termCall) consumeRecovered(k *outputChunk) bool {
	if len(c.recovered) == 0 {
		return false
	}
	if k.replace {
		c.recovered = nil
		return false
	}
	taken := false
	for _, chunk := range []*[]byte{&k.output, &k.delta} {
		switch {
		case len(*chunk) == 0 || len(c.recovered) == 0:
		case bytes.HasPrefix(c.recovered, *chunk):
			c.recovered = c.recovered[len(*chunk):]
			*chunk, taken = nil, true
		case bytes.HasPrefix(*chunk, c.recovered):
			*chunk = (*chunk)[len(c.recovered):]
			c.recovered, taken = nil, true
		default:
			c.recovered = nil
		}
	}
	return taken
}

// withOutput is message m with the output of its extension keys (tm) set to
// what k keeps of it: a key k emptied goes, and _meta with it when nothing
// else is left in it.
func withOutput(m *filters.Message, tm acp.TermMeta, k outputChunk) (*filters.Message, error) {
	raw := m.Raw
	var err error
	for _, key := range []struct {
		name string
		had  []byte
		data []byte
	}{{acp.MetaTerminalOutput, tm.Output, k.output}, {acp.MetaTerminalOutputDelta, tm.OutputDelta, k.delta}} {
		switch {
		case key.had == nil:
		case len(key.data) == 0:
			raw, _, err = rawjson.Delete(raw, toolcall.At("_meta", key.name)...)
		default:
			raw, err = rawjson.Set(raw, rawjson.Enclose(key.data), toolcall.At("_meta", key.name, "data")...)
		}
		if err != nil {
			return nil, err
		}
	}
	left := tm.Others + len(k.output) + len(k.delta)
	if tm.Info != nil || tm.Exit != nil {
		left++
	}
	if left == 0 { // nothing left in _meta
		if raw, _, err = rawjson.Delete(raw, toolcall.At("_meta")...); err != nil {
			return nil, err
		}
	}
	return filters.NewMessage(m.Dir, raw, m.Time, m.Caps), nil
}

// onlyOutput reports whether update u carries nothing but output: no
// member besides its id, no content, no _meta key but the extension's
// output keys.
func onlyOutput(u *acp.ToolUpdate) bool {
	tm := u.Term
	return u.Others == 0 && u.Content == nil && tm.Others == 0 && tm.Info == nil && tm.Exit == nil
}

// translateUpdate handles a tool_call / tool_call_update for a client
// without the extension.
func (f *TerminalOutput) translateUpdate(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) error {
	c, tm, k, trimmed, err := f.track(m, u, out)
	if err != nil {
		return err
	}
	if c == nil {
		return f.forward(m, out)
	}
	if trimmed && len(k.output) == 0 && len(k.delta) == 0 && onlyOutput(u) {
		return filters.Drop // output the client was shown from rawOutput already
	}
	return f.translateCall(m, u, c, tm, k, out)
}

// translateCall shows the update u of call c, which streams k, to a client
// that cannot show c's terminal: as content.
func (f *TerminalOutput) translateCall(m *filters.Message, u *acp.ToolUpdate, c *termCall, tm acp.TermMeta, k outputChunk, out filters.Emitter) error {
	c.apply(k, f.maxBytes(), true)
	streams := len(k.output) > 0 || len(k.delta) > 0 || k.replace
	if streams {
		c.held.held, c.whole = true, false
	}
	hasItems := u.Content != nil && hasTerminalItem(u.Content, c.ours)
	switch {
	case hasItems:
		c.whole = c.whole && bytes.Equal(c.template, u.Content)
		c.template = append(c.template[:0], u.Content...)
	case u.Content != nil:
		c.whole, c.tailed = false, false // the agent's own content replaces the output shown
	}
	final := u.Final()

	// Output only: coalesce.
	if streams && !final && u.Others == 0 && tm.Others == 0 && u.Content == nil {
		return f.hold(c, interval(f.Interval), min(c.out.total, c.out.budget()), c.out.total, m.Time, out)
	}

	// Anything else is forwarded, without the extension's parts, after
	// every other call's held output, and carrying this call's.
	msg, err := f.translated(m, u, c, hasItems)
	if err != nil {
		return err
	}
	if err := f.flush(m.Time, out, c); err != nil {
		return err
	}
	if final {
		f.finish(c)
	}
	return out.Emit(m.Dir, msg)
}

// translated is update u of m for a client without the extension: without
// the extension's parts, and showing c's output in the content when the
// agent's content has its terminal (hasItems), when output is held, or at
// the end, where it shows all of it, once: content the client already
// shows is not sent again.
func (f *TerminalOutput) translated(m *filters.Message, u *acp.ToolUpdate, c *termCall, hasItems bool) ([]byte, error) {
	msg := m.Raw
	var err error
	if tm := u.Term; tm.Any() {
		if msg, err = acp.StripTermMeta(msg, toolcall.At(), tm); err != nil {
			return nil, err
		}
	}
	final := u.Final()
	text, all := c.out.live(), c.out.total <= c.out.budget()
	if final {
		text, all = c.out.text(), true
		if s, ok := rawOutputEscaped(u.RawOutput); ok && len(s) > len(c.out.kept) {
			c.recovered = nil
			if rest, prefix := c.out.suffix(s); prefix {
				c.recovered = append([]byte(nil), rest...)
			}
			text, c.whole = s, false
			c.out.reset() // what the client shows from now on
			c.out.add(s, c.limit, true)
		}
	}
	var content []byte
	// The final update shows the whole output even when the client shows it
	// already: ACP keeps an absent content as it was, but agent-shell
	// renders a call from each update's own content, and would end the call
	// with none.
	switch {
	case hasItems:
		content, err = renderContent(u.Content, c.ours, c.fence.quoteEscaped(text))
	case u.Content == nil && len(text) > 0 && (c.held.held || final):
		content, err = renderContent(c.template, c.ours, c.fence.quoteEscaped(text))
	}
	if err != nil || content == nil {
		return msg, err
	}
	if msg, err = rawjson.Set(msg, content, toolcall.At("content")...); err != nil {
		return nil, err
	}
	c.tailed, c.whole = !all, all
	if len(text) > 0 {
		sent(c, m.Time, len(text))
	}
	return msg, nil
}

// translatePermission removes the extension's terminals from the tool call a
// permission request shows (claude repeats the call's content there).
func (f *TerminalOutput) translatePermission(m *filters.Message, out filters.Emitter) error {
	call, ok := m.PermissionCall()
	if !ok {
		return f.forward(m, out)
	}
	tc, id, tm := call.Raw, call.ID, call.Term
	c := f.calls.Get(m.SessionID(), id)
	if c == nil && !tm.Any() {
		return f.forward(m, out)
	}
	probe := &termCall{}
	if c != nil {
		probe.tids = c.tids
	}
	probe.note(tm)
	msg := m.Raw
	var err error
	if tm.Any() {
		if msg, err = acp.StripTermMeta(msg, []string{"params", "toolCall"}, tm); err != nil {
			return err
		}
	}
	if content, ok := rawjson.Get(tc, "content"); ok && hasTerminalItem(content, probe.ours) {
		var quoted []byte
		if c != nil {
			quoted = c.fence.quoteEscaped(c.out.live())
		}
		if content, err = renderContent(content, probe.ours, quoted); err != nil {
			return err
		}
		if msg, err = rawjson.Set(msg, content, "params", "toolCall", "content"); err != nil {
			return err
		}
	}
	if err := f.flush(m.Time, out, nil); err != nil {
		return err
	}
	return out.Emit(m.Dir, msg)
}

// pass handles a tool update for a client with the extension.
func (f *TerminalOutput) pass(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) error {
	c, tm, k, trimmed, err := f.track(m, u, out)
	if err != nil {
		return err
	}
	if c == nil {
		return nil
	}
	if trimmed {
		if len(k.output) == 0 && len(k.delta) == 0 && onlyOutput(u) {
			return filters.Drop // output the client was shown from rawOutput already
		}
		if m, err = withOutput(m, tm, k); err != nil {
			return err
		}
		u2, _ := m.ToolUpdate()
		u, tm = &u2, u2.Term
	}
	if u.Content != nil && hasTerminalItem(u.Content, c.ours) {
		c.announced = true
	}
	if c.unshown || !c.announced && (len(k.output) > 0 || len(k.delta) > 0) {
		c.unshown = true
		return f.translateCall(m, u, c, tm, k, out)
	}
	// A replacement that extends what the terminal shows can be sent
	// as what it adds, to a client that only appends.
	var added []byte
	extends := false
	if k.replace && !f.client.delta {
		added, extends = c.out.suffix(k.output)
	}
	c.apply(k, f.maxBytes(), false)
	msg := m.Raw
	if msg, err = f.clientKeys(msg, tm, k, added, extends); err != nil {
		return err
	}
	if u.Final() {
		f.finish(c)
		if rec := f.recovery(c, u.RawOutput); rec != nil {
			if err := out.Emit(m.Dir, rec); err != nil {
				return err
			}
		}
	}
	return out.Emit(m.Dir, msg)
}

// clientKeys puts streamed output under the keys the client reads. A client
// that advertised terminal_output_delta is sent every append as
// terminal_output_delta, and terminal_output only for a replacement, as
// claude-agent-acp does for such a client. A client that advertised only
// terminal_output appends whatever it gets under that key: it is sent
// appends as terminal_output, and a replacement as what it adds when it
// extends what the terminal shows (added, extends); any other replacement
// is passed on, the best it can be shown.
func (f *TerminalOutput) clientKeys(msg []byte, tm acp.TermMeta, k outputChunk, added []byte, extends bool) ([]byte, error) {
	move := func(from string, val []byte, to string) ([]byte, error) {
		msg, _, err := rawjson.Delete(msg, toolcall.At("_meta", from)...)
		if err != nil {
			return nil, err
		}
		return rawjson.Set(msg, val, toolcall.At("_meta", to)...)
	}
	switch {
	case tm.Output != nil && tm.OutputDelta != nil:
		return msg, nil // both at once: as the agent sent them
	case f.client.delta && tm.Output != nil && !k.replace:
		return move(acp.MetaTerminalOutput, tm.Output, acp.MetaTerminalOutputDelta)
	case !f.client.delta && tm.OutputDelta != nil:
		return move(acp.MetaTerminalOutputDelta, tm.OutputDelta, acp.MetaTerminalOutput)
	case !f.client.delta && k.replace && extends:
		return rawjson.Set(msg, rawjson.Enclose(added), toolcall.At("_meta", acp.MetaTerminalOutput, "data")...)
	}
	return msg, nil
}

// recovery is the delta that completes c's streamed output from the
// rawOutput of its final update, when the stream is a strict prefix of it.
func (f *TerminalOutput) recovery(c *termCall, rawOutput []byte) []byte {
	if len(c.tids) == 0 || !c.fromStart {
		return nil
	}
	s, ok := rawOutputEscaped(rawOutput)
	if !ok {
		return nil
	}
	rest := c.out.rest(s)
	if rest == nil {
		return nil
	}
	c.recovered = append(c.recovered[:0], rest...)
	val := appendTermValue(nil, c.tids[0], rawjson.Enclose(rest))
	c.out.add(rest, c.limit, false) // what the terminal shows from now on
	return buildToolUpdate(c.session, c.id, "_meta", wrapMember(f.client.key, val))
}

// Skips implements filters.Skipper.
func (f *TerminalOutput) Skips(g filters.Glance) bool { return f.skips(g) }
