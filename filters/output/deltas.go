package output

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// Deltas is the --deltas filter, for agents that stream a command's output
// as accumulated snapshots: every tool_call_update of the call replaces its
// content with one text item that extends the previous one, fenced
// ("```sh\n" + output without trailing newlines + "\n```\n", codex-acp ≤0.13
// without the extension) or not.
//
// For a client with the terminal-output extension, the proxy gives each
// execute call a display terminal (the tool_call gains
// _meta.terminal_info and a terminal content item), turns every snapshot
// into one update whose _meta.terminal_output carries only the new text,
// and adds _meta.terminal_exit to the update that ends the call (exit_code
// from rawOutput.exit_code, else null). The data concatenated is the final
// snapshot's output exactly, completed from rawOutput when that extends it
// (the trailing newlines the fence trims, or output the agent stopped
// streaming). Diffing is done on the JSON string bytes, fence removed, so
// new text is copied through without being decoded. A snapshot that does
// not extend the previous one, or content of another shape, is forwarded
// as it is, and the call's later updates too: it replaces the terminal.
//
// For a client without the extension, the snapshots of a call are
// coalesced under the policy in coalesce.go: the latest wins, the first
// goes at once, the rest at a bounded rate, and the update that ends the
// call carries the last snapshot (or the longer output from rawOutput). A
// call that showed no content at all (cline reports a command's output only
// in rawOutput) ends with the output from rawOutput, fenced.
//
// State is kept per execute call and freed when the call ends or its turn
// does.
type Deltas struct {
	// Interval is the coalescing interval; zero means
	// DefaultCoalesceInterval, NoCoalescing none.
	Interval time.Duration
	// LiveTailBytes bounds the output shown per coalesced update to a
	// client without the extension while a command runs (a live tail, see
	// stream.live); zero means DefaultLiveTailBytes.
	LiveTailBytes int

	coalescer[deltaCall, *deltaCall]
	// given counts the terminals given to each call id (of a session): an
	// agent that numbers its calls per turn reuses ids, and a client may
	// keep what a terminal id showed, so a call with a reused id gets a
	// terminal id of its own (giveTerminal).
	given toolcall.List[int]
}

var (
	_ filters.Filter = (*Deltas)(nil)
	_ filters.Timed  = (*Deltas)(nil)
)

// deltaCall is what Deltas keeps for one execute call.
type deltaCall struct {
	session, id string

	// For a client with the extension.
	convert bool   // the proxy gave the call a terminal; snapshots become deltas
	opened  bool   // the first snapshot was seen; open is its fence
	open    []byte // the snapshots' fence opening, as JSON string bytes
	body    []byte // the output sent as deltas, as JSON string bytes
	pending []byte // a high surrogate that waits for its pair (extend)
	dataKey string // the _meta key the client appends from
	tid     string // the terminal's id: the call's, or another for a reused call id

	// For a client without it.
	latest []byte // the latest snapshot message (held or sent)
	held   slot   // latest is held while held.held
	tail   int    // the live tail's budget (stream.live)
	tailed bool   // what was sent of latest is a live tail

	members heldMembers // what the client holds of the call's other members

	// shown: an update of the call carried content that is not empty, so
	// the client shows something of it the proxy does not replace.
	shown bool
}

// newDeltaCall starts keeping call u of m, whose members the client now
// holds.
func (f *Deltas) newDeltaCall(m *filters.Message, u *acp.ToolUpdate) *deltaCall {
	c := &deltaCall{session: m.SessionID(), id: u.ID, tid: u.ID, tail: f.LiveTailBytes, shown: !emptyArray(u.Content)}
	if c.tail <= 0 {
		c.tail = DefaultLiveTailBytes
	}
	c.members.note(u.Raw)
	return c
}

func (c *deltaCall) slot() *slot           { return &c.held }
func (c *deltaCall) key() (string, string) { return c.session, c.id }
func (c *deltaCall) endedBudget() int64    { return 0 } // a later snapshot shows all again
func (c *deltaCall) size() int             { return len(c.latest) + len(c.body) }

// wholeUpdate is, for a call streamed as deltas, the high surrogate that
// waited for its pair, which will not come; else the latest snapshot as it
// is, when it is held or was sent as a live tail.
func (c *deltaCall) wholeUpdate() ([]byte, error) {
	if c.convert && len(c.pending) > 0 {
		msg := buildToolUpdate(c.session, c.id, "_meta", wrapMember(c.dataKey, appendTermValue(nil, c.tid, rawjson.Enclose(c.pending))))
		c.body, c.pending = append(c.body, c.pending...), nil
		return msg, nil
	}
	if c.latest == nil || !c.held.held && !c.tailed {
		return nil, nil
	}
	c.tailed = false
	return c.latest, nil
}

// heldUpdate is the latest snapshot, its output cut to a live tail when
// it is longer than the budget.
func (c *deltaCall) heldUpdate() ([]byte, int, error) {
	msg, tailed, err := liveSnapshot(c.latest, c.tail)
	if err != nil {
		return nil, 0, err
	}
	c.tailed = tailed
	return msg, len(msg), nil
}

// liveSnapshot is the snapshot message msg with its output cut to its last
// lines within budget bytes, after a line saying how many came before
// (stream.live), and whether it was cut.
func liveSnapshot(msg []byte, budget int) ([]byte, bool, error) {
	content, _ := rawjson.Get(msg, toolcall.At("content")...)
	text, ok := snapshotText(content)
	if !ok || len(text) <= budget {
		return msg, false, nil
	}
	open, body, closing := splitFence(text, `\n`)
	tail := rawjson.TailLines(body, budget)
	quoted := slices.Concat([]byte{'"'}, open, tailMarker(rawjson.CountNewlines(body[:len(body)-len(tail)])), tail, closing, []byte{'"'})
	out, err := rawjson.Set(msg, append(appendTextItem([]byte{'['}, quoted), ']'), toolcall.At("content")...)
	return out, err == nil, err
}

// Name implements filters.Filter.
func (f *Deltas) Name() string { return "deltas" }

// Apply implements filters.Filter.
func (f *Deltas) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir == acp.ClientToAgent {
		return nil
	}
	mode := f.client.load(m)
	if mode == clientUnknown {
		return nil
	}
	f.announced(m)
	// Without a call kept, only a command's tool_call is of interest.
	if f.calls.Len() > 0 || mentions(m.Raw, quotedExecute) || mentions(m.Raw, quotedCommand) {
		if u, ok := m.ToolUpdate(); ok {
			m, u, ok, err := f.dropRepeats(m, u)
			if err != nil {
				return err
			}
			if !ok {
				return filters.Drop // nothing new in it
			}
			if mode == clientSpeaks {
				return f.toDeltas(m, &u, out)
			}
			return f.coalesce(m, &u, out)
		}
		if m.Method() == "session/request_permission" {
			f.notePermission(m)
		}
	}
	return f.forward(m, out)
}

// dropRepeats leaves out of an update of a kept call the members whose
// value the client already holds (repeats.go). It returns the message to go
// on with, and false when nothing is left of it to send.
func (f *Deltas) dropRepeats(m *filters.Message, u acp.ToolUpdate) (*filters.Message, acp.ToolUpdate, bool, error) {
	c := f.calls.Get(m.SessionID(), u.ID)
	if c == nil {
		return m, u, true, nil
	}
	if u.SessionUpdate != "tool_call_update" {
		// The call announced again: the client takes it whole, members
		// it leaves out included.
		c.members = heldMembers{}
		c.members.note(u.Raw)
		return m, u, true, nil
	}
	raw, dropped, err := c.members.strip(m.Raw, &u)
	if err != nil || dropped == 0 {
		return m, u, true, err
	}
	m = filters.NewMessage(m.Dir, raw, m.Time, m.Caps)
	u, ok := m.ToolUpdate()
	if !ok {
		return nil, u, false, fmt.Errorf("deltas: an update without its repeated members does not read back")
	}
	return m, u, u.Others > 0 || u.Content != nil || u.Meta != nil, nil
}

// notePermission records the members a permission request shows for a
// kept call: the client applies them to the call.
func (f *Deltas) notePermission(m *filters.Message) {
	call, ok := m.PermissionCall()
	if !ok {
		return
	}
	if c := f.calls.Get(m.SessionID(), call.ID); c != nil {
		c.members.note(call.Raw)
	}
}

// toDeltas handles a tool update for a client with the extension.
func (f *Deltas) toDeltas(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) error {
	if u.SessionUpdate == "tool_call" {
		return f.giveTerminal(m, u, out)
	}
	c := f.calls.Get(m.SessionID(), u.ID)
	if c == nil {
		return f.forward(m, out)
	}
	if !c.convert {
		return f.coalesce(m, u, out)
	}
	final := u.Final()
	var delta []byte
	snap := u.Content != nil
	if snap {
		text, ok := snapshotText(u.Content)
		if ok {
			delta, ok = c.extend(text, final)
		}
		if !ok {
			// Not a snapshot that extends the last one (opencode's
			// snapshots keep only the last 30,000 characters): it replaces
			// the terminal, and the call's snapshots from now on are
			// coalesced as for a client without the extension.
			c.convert = false
			return f.coalesce(m, u, out)
		}
	}
	if final {
		f.calls.Remove(m.SessionID(), u.ID)
	}
	if err := f.flush(m.Time, out, c); err != nil {
		return err
	}
	msg, err := f.asDelta(m.Raw, u, c.tid, delta)
	if err != nil {
		return err
	}
	if !final {
		if len(delta) == 0 && snap && u.Others == 0 && u.Meta == nil {
			return filters.Drop // the same snapshot again: nothing to show
		}
		c.body = append(c.body, delta...)
		return out.Emit(m.Dir, msg)
	}

	if !snap {
		delta = c.pending // the surrogate that waited for a pair
	}
	return f.endDeltas(m, u, c, delta, msg, out)
}

// asDelta is update u of raw as a client with the extension gets it:
// without its snapshot, and before the end with delta, the snapshot's new
// text, as streamed output (endDeltas sends the last).
func (f *Deltas) asDelta(raw []byte, u *acp.ToolUpdate, tid string, delta []byte) ([]byte, error) {
	return toolcall.EditUpdate(raw, u, func(upd []byte) ([]byte, error) {
		var err error
		if u.Content != nil {
			if upd, _, err = rawjson.Delete(upd, "content"); err != nil {
				return nil, err
			}
		}
		if !u.Final() && len(delta) > 0 {
			val := appendTermValue(nil, tid, rawjson.Enclose(delta))
			upd, err = rawjson.Set(upd, val, "_meta", f.client.key)
		}
		return upd, err
	})
}

// endDeltas sends the end of call c streamed as deltas, for its final
// update u of m (msg as the client gets it): the last new text, what only
// rawOutput has, then the exit.
func (f *Deltas) endDeltas(m *filters.Message, u *acp.ToolUpdate, c *deltaCall, delta, msg []byte, out filters.Emitter) error {
	c.body = append(c.body, delta...)
	if len(delta) > 0 {
		if err := out.Emit(m.Dir, f.dataUpdate(c, rawjson.Enclose(delta))); err != nil {
			return err
		}
	}
	if rest := c.recover(u.RawOutput); rest != "" {
		if err := out.Emit(m.Dir, f.dataUpdate(c, rawjson.Quote(rest))); err != nil {
			return err
		}
	}
	if tm := u.Term; tm.Exit == nil {
		exit := appendTermExit(nil, c.tid, exitCode(u.RawOutput))
		var err error
		if msg, err = rawjson.Set(msg, exit, toolcall.At("_meta", acp.MetaTerminalExit)...); err != nil {
			return err
		}
	}
	return out.Emit(m.Dir, msg)
}

// isCommand reports whether the tool_call u runs a command: its kind is
// execute, or codex-acp's read and search kinds for a command it reads as a
// listing or a search (ls, rg), whose rawInput names the command; these
// stream snapshots too.
func isCommand(u *acp.ToolUpdate) bool {
	if u.Kind == "execute" {
		return true
	}
	if u.Kind != "read" && u.Kind != "search" || len(u.RawInput) == 0 {
		return false
	}
	_, ok := rawjson.Get(u.RawInput, "command")
	return ok
}

// giveTerminal adds a display terminal to an execute tool_call that has
// neither content nor one of its own.
func (f *Deltas) giveTerminal(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) error {
	if u.Kind != "execute" || u.Term.Any() || !emptyArray(u.Content) || f.calls.Get(m.SessionID(), u.ID) != nil {
		return nil
	}
	id := u.ID
	n := f.given.Get(m.SessionID(), u.ID)
	if n == nil {
		n = new(int)
		f.given.Add(m.SessionID(), u.ID, n)
	}
	if *n++; *n > 1 {
		id = fmt.Sprintf("%s#%d", u.ID, *n) // a reused call id: a terminal of its own
	}
	tid := rawjson.Quote(id)
	content := append(append([]byte(`[{"type":"terminal","terminalId":`), tid...), "}]"...)
	msg, err := rawjson.Set(m.Raw, content, toolcall.At("content")...)
	if err != nil {
		return err
	}
	info := append(append([]byte(`{"terminal_id":`), tid...), '}')
	if msg, err = rawjson.Set(msg, info, toolcall.At("_meta", acp.MetaTerminalInfo)...); err != nil {
		return err
	}
	c := f.newDeltaCall(m, u)
	c.convert, c.dataKey, c.tid = true, f.client.key, id
	if err := f.add(c.session, u.ID, c, m.Time, out); err != nil {
		return err
	}
	return out.Emit(m.Dir, msg)
}

// extend returns the new text of snapshot text (JSON string bytes), and
// false when it does not extend what was sent. Unless final, a trailing
// escaped high surrogate waits for the next snapshot, so that a pair split
// between snapshots is never split between deltas.
func (c *deltaCall) extend(text []byte, final bool) ([]byte, bool) {
	open, body, _ := splitFence(text, `\n`)
	if c.opened && !bytes.Equal(open, c.open) {
		return nil, false
	}
	if !bytes.HasPrefix(body, c.body) {
		return nil, false
	}
	if !c.opened {
		c.opened, c.open = true, append([]byte(nil), open...)
	}
	delta := body[len(c.body):]
	c.pending = c.pending[:0]
	if !final {
		cut := len(delta) - rawjson.HighSurrogateTail(delta)
		c.pending = append(c.pending, delta[cut:]...)
		delta = delta[:cut]
	}
	if !rawjson.Valid(rawjson.Enclose(delta)) {
		return nil, false
	}
	return delta, true
}

// recover returns what rawOutput holds past the output sent, when that is a
// prefix of it.
func (c *deltaCall) recover(rawOutput []byte) string {
	s, ok := rawOutputText(rawOutput)
	if !ok {
		return ""
	}
	sent, err := rawjson.Unescape(c.body)
	if err != nil || len(s) <= len(sent) || !strings.HasPrefix(s, sent) {
		return ""
	}
	return s[len(sent):]
}

func (f *Deltas) dataUpdate(c *deltaCall, quoted []byte) []byte {
	return buildToolUpdate(c.session, c.id, "_meta", wrapMember(f.client.key, appendTermValue(nil, c.tid, quoted)))
}

// coalesce handles a tool update for a client without the extension.
func (f *Deltas) coalesce(m *filters.Message, u *acp.ToolUpdate, out filters.Emitter) error {
	c := f.calls.Get(m.SessionID(), u.ID)
	if u.SessionUpdate == "tool_call" && isCommand(u) && c == nil {
		c = f.newDeltaCall(m, u)
		if err := f.add(c.session, u.ID, c, m.Time, out); err != nil {
			return err
		}
		return f.forward(m, out)
	}
	if c == nil {
		return f.forward(m, out)
	}
	_, snap := snapshotText(u.Content)
	if snap && u.Others == 0 && u.Meta == nil && !u.Final() {
		c.latest = append(c.latest[:0], m.Raw...)
		return f.hold(c, interval(f.Interval), min(len(m.Raw), c.tail), len(u.Content), m.Time, asRead{out, m})
	}
	if u.Content != nil {
		// The agent's own content replaces what is held.
		c.held.held, c.tailed = false, false
		c.shown = c.shown || !emptyArray(u.Content)
		if snap {
			c.latest = append(c.latest[:0], m.Raw...)
		}
	}
	if !u.Final() {
		return f.forward(m, out)
	}
	f.calls.Remove(m.SessionID(), u.ID)
	msg := m.Raw
	if u.Content == nil && (c.latest != nil || !c.shown) {
		var content []byte
		if c.latest != nil {
			content = c.recoverContent(u.RawOutput)
			if content == nil {
				// Even when the client shows the last snapshot already: a client
				// that renders a call from each update's own content (agent-shell)
				// would end it with none.
				content, _ = rawjson.Get(c.latest, toolcall.At("content")...)
			}
		} else if s, ok := rawOutputText(u.RawOutput); ok && s != "" {
			// No content at all, the output only in rawOutput (cline): the
			// client is shown it, fenced as the agent's own fallback would be.
			content = append(appendTextItem([]byte{'['}, fenceFor(m).quoteEscaped(rawjson.Escape(s))), ']')
		}
		if content != nil {
			var err error
			if msg, err = rawjson.Set(msg, content, toolcall.At("content")...); err != nil {
				return err
			}
		}
	}
	if err := f.flush(m.Time, out, c); err != nil {
		return err
	}
	return out.Emit(m.Dir, msg)
}

// asRead is out, but for a line that is m's own, byte for byte (a snapshot
// sent at once, as it came), which it sends as m itself: the line read
// passes unchanged, and observers are told so.
type asRead struct {
	filters.Emitter
	m *filters.Message
}

func (e asRead) Emit(d acp.Direction, raw []byte) error {
	if d == e.m.Dir && bytes.Equal(raw, e.m.Raw) {
		raw = e.m.Raw
	}
	return e.Emitter.Emit(d, raw)
}

// recoverContent is the content showing rawOutput's text, fenced as the
// last snapshot was, when it extends that snapshot's output; else nil.
func (c *deltaCall) recoverContent(rawOutput []byte) []byte {
	s, ok := rawOutputText(rawOutput)
	if !ok {
		return nil
	}
	content, _ := rawjson.Get(c.latest, toolcall.At("content")...)
	raw, ok := snapshotText(content)
	if !ok {
		return nil
	}
	text, err := rawjson.Unescape(raw)
	if err != nil {
		return nil
	}
	item := func(t string) []byte {
		return append(appendTextItem([]byte{'['}, rawjson.Quote(t)), ']')
	}
	// Output that itself looks like a fence is not one.
	if strings.HasPrefix(s, text) {
		if len(s) > len(text) {
			return item(s)
		}
		return nil
	}
	open, body, closing := splitFence([]byte(text), "\n")
	full := s
	if open != nil {
		full = strings.TrimRight(s, "\n")
	}
	if len(full) <= len(body) || !strings.HasPrefix(full, string(body)) {
		return nil
	}
	return item(string(open) + full + string(closing))
}

// snapshotText returns the text of content when it is exactly one text
// item, as the JSON string's bytes without the quotes.
func snapshotText(content []byte) ([]byte, bool) {
	if content == nil {
		return nil, false
	}
	var item []byte
	n := 0
	rawjson.TrustedElements(content, func(el []byte) bool { item, n = el, n+1; return n < 2 })
	if n != 1 {
		return nil, false
	}
	return itemText(item)
}

// itemText is the text of a content item of type content/text, as JSON
// string bytes.
func itemText(item []byte) ([]byte, bool) {
	typ, inner := rawjson.TrustedGetPair(item, "type", "content")
	if string(typ) != `"content"` {
		return nil, false
	}
	typ, text := rawjson.TrustedGetPair(inner, "type", "text")
	if string(typ) != `"text"` || len(text) < 2 || text[0] != '"' {
		return nil, false
	}
	return text[1 : len(text)-1], true
}

// splitFence splits a snapshot's text into the fence opening ("```lang" and
// a newline), the output and the closing (a newline, "```", maybe a
// newline). nl is the newline as text spells it: `\n` in JSON string bytes,
// "\n" decoded. Text that is not fenced is all body.
func splitFence(text []byte, nl string) (open, body, closing []byte) {
	if !bytes.HasPrefix(text, []byte("```")) {
		return nil, text, nil
	}
	i := 3
	for i < len(text) && isLangByte(text[i]) {
		i++
	}
	if !bytes.HasPrefix(text[i:], []byte(nl)) {
		return nil, text, nil
	}
	i += len(nl)
	rest := text[i:]
	for _, c := range [...]string{nl + "```" + nl, nl + "```"} {
		cut := len(rest) - len(c)
		if bytes.HasSuffix(rest, []byte(c)) && (nl != `\n` || rawjson.BackslashesBefore(rest, cut)%2 == 0) {
			return text[:i], rest[:cut], rest[cut:]
		}
	}
	return nil, text, nil
}

func isLangByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("_+-.#", b) >= 0
}

// emptyArray reports an absent content or [].
func emptyArray(content []byte) bool {
	return content == nil || len(bytes.TrimSpace(content)) == 2 && content[0] == '['
}

// exitCode is rawOutput.exit_code when it is a number, else null.
func exitCode(rawOutput []byte) []byte {
	if v, ok := rawjson.Get(rawOutput, "exit_code"); ok && len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return v
	}
	return []byte("null")
}

// appendTermExit appends {"terminal_id":…,"exit_code":…,"signal":null}.
func appendTermExit(dst []byte, tid string, code []byte) []byte {
	dst = append(dst, `{"terminal_id":`...)
	dst = rawjson.AppendQuote(dst, tid)
	dst = append(dst, `,"exit_code":`...)
	dst = append(dst, code...)
	return append(dst, `,"signal":null}`...)
}

// Skips implements filters.Skipper.
func (f *Deltas) Skips(g filters.Glance) bool { return f.skips(g) }
