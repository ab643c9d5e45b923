package view

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// MaxMessages bounds the message list: past it, each side keeps its first
// and last MaxMessages/2 messages.
const MaxMessages = 4000

// convBudget is how much text the conversation holds before further
// entries are cut to their first and last 3 lines.
const convBudget = 1 << 20

// maxBadLineEvents bounds the conversation entries for lines that are not
// JSON-RPC messages.
const maxBadLineEvents = 20

// briefRunes bounds a message's one-line description in the list.
const briefRunes = 160

// side analyses one stream of messages, both directions interleaved as
// they crossed: the received lines (before the filters) or the delivered
// ones (after).
type side struct {
	cur         source // what the line being fed was made from
	dirs        [2]Count
	points      [2][]point // per message, for the timeline
	first, last time.Duration
	seen        bool

	calls     map[string]*callAcc
	callOrder []*callAcc

	msgHead []msgRec
	msgTail []msgRec // a ring once full
	msgN    int

	conv     []Event
	convText *textAcc // the open agent/thought/user message, appended to
	convOpen int      // its index in conv, or -1

	// pending are the requests sent in each direction, by raw id: the
	// method, and for a permission request its event.
	pending [2]map[string]pendingReq

	badLines              int    // lines that are not JSON objects
	convBytes             int    // text in conv, for convBudget
	clientInit, agentInit []byte // initialize params and result
	sessionIDs            []string
	cwd                   string
}

type point struct {
	t time.Duration
	n int32
}

type msgRec struct {
	Msg
	call string
}

type pendingReq struct {
	method string
	event  int // permission: index in conv
	opts   map[string]string
}

func newSide() *side {
	return &side{
		calls:    map[string]*callAcc{},
		convOpen: -1,
		pending:  [2]map[string]pendingReq{{}, {}},
	}
}

// feed takes one line that crossed in direction d at t; valid says it is
// known to be valid JSON.
func (s *side) feed(t time.Duration, d acp.Direction, line []byte, valid bool) {
	if !s.seen || t < s.first {
		s.first = t
	}
	s.seen = true
	s.last = max(s.last, t)
	count(&s.dirs[d], len(line))
	s.points[d] = append(s.points[d], point{t, int32(min(len(line)+1, 1<<31-1))})

	rec := msgRec{Msg: Msg{T: secs(t), Dir: int(d), Bytes: len(line) + 1, Call: -1, Src: s.cur.line, Timer: s.cur.timer}}
	m, ok := parseMessage(line, valid)
	if !ok {
		rec.Label = "(not a JSON object)"
		rec.Brief = brief(string(firstLines(line, 1, 400)))
		// An agent that logs to stdout writes many: the first few are
		// shown, and the message list has them all.
		if s.badLines++; s.badLines <= maxBadLineEvents {
			txt := makeText(line)
			title := "a line that is not a JSON-RPC message"
			if s.badLines == maxBadLineEvents {
				title += " (the last one shown here; the message list has the others)"
			}
			s.event(Event{T: secs(t), Kind: "error", Dir: d.String(), Title: title, Text: &txt})
		}
		s.addMsg(rec)
		return
	}
	switch {
	case m.method != "":
		rec.Label = m.method
		if m.id != nil {
			s.pending[d][string(m.id)] = pendingReq{method: m.method, event: -1}
		}
		s.request(t, d, m, &rec)
	case m.id != nil:
		req, ok := s.pending[d.Reverse()][string(m.id)]
		delete(s.pending[d.Reverse()], string(m.id))
		if !ok {
			req.method = "?"
		}
		s.response(t, d, m, req, &rec)
	default:
		rec.Label = "(no method, no id)"
	}
	s.addMsg(rec)
}

var errNotObject = errors.New("not a JSON object")

// message is the top level of a JSON-RPC message, as spans of its line.
type message struct {
	line                       []byte
	method                     string
	id, params, result, errorV []byte
}

// parseMessage reads the top level of line in one walk; ok is false when
// it is not a JSON object. valid says line is known to be valid JSON (the
// trace reader checked it): then it is not validated again, so that a
// large snapshot costs the trace reader's scan and a memchr, not two
// scans.
func parseMessage(line []byte, valid bool) (m message, ok bool) {
	m.line = line
	members := func(obj []byte, fn func(key, val []byte) bool) error {
		if len(obj) == 0 || obj[0] != '{' {
			return errNotObject
		}
		rawjson.TrustedMembers(obj, fn)
		return nil
	}
	if !valid {
		members = rawjson.Members
	}
	err := members(line, func(key, val []byte) bool {
		switch string(key) {
		case "method":
			m.method, _ = rawjson.Unquote(val)
		case "id":
			m.id = val
		case "params":
			m.params = val
		case "result":
			m.result = val
		case "error":
			m.errorV = val
		}
		return true
	})
	return m, err == nil
}

func (s *side) request(t time.Duration, d acp.Direction, m message, rec *msgRec) {
	params := m.params
	switch m.method {
	case "initialize":
		if d == acp.ClientToAgent {
			s.clientInit = params
		}
	case "session/new", "session/load", "session/resume":
		if cwd, ok := rawjson.GetString(params, "cwd"); ok {
			s.cwd = cwd
			rec.Brief = brief(cwd)
		}
		if id, ok := rawjson.GetString(params, "sessionId"); ok {
			s.addSession(id)
		}
	case "session/prompt":
		prompt, _ := rawjson.Get(params, "prompt")
		text := blocksText(prompt)
		rec.Brief = brief(text)
		txt := makeText([]byte(text))
		s.event(Event{T: secs(t), Kind: "prompt", Dir: d.String(), Text: &txt})
	case "session/update":
		s.update(t, d, m, rec)
	case "session/request_permission":
		tc, _ := rawjson.Get(params, "toolCall")
		title, _ := rawjson.GetString(tc, "title")
		id, _ := rawjson.GetString(tc, "toolCallId")
		ev := Event{T: secs(t), Kind: "permission", Dir: d.String(), Call: id, Title: title}
		req := pendingReq{method: m.method, opts: map[string]string{}}
		opts, _ := rawjson.Get(params, "options")
		_ = rawjson.Elements(opts, func(_ int, o []byte) bool {
			name, _ := rawjson.GetString(o, "name")
			kind, _ := rawjson.GetString(o, "kind")
			oid, _ := rawjson.GetString(o, "optionId")
			ev.Options = append(ev.Options, name+" ("+kind+")")
			req.opts[oid] = name
			return true
		})
		rec.Brief = brief(title)
		if c := s.calls[id]; c != nil {
			rec.call = id
		}
		req.event = s.event(ev)
		s.pending[d][string(m.id)] = req
	case "session/cancel":
		s.event(Event{T: secs(t), Kind: "stop", Dir: d.String(), Title: "session/cancel"})
	}
}

func (s *side) response(t time.Duration, d acp.Direction, m message, req pendingReq, rec *msgRec) {
	if e := m.errorV; e != nil {
		rec.Label = "error of " + req.method
		msg, _ := rawjson.GetString(e, "message")
		code, _ := rawjson.Get(e, "code")
		rec.Brief = brief(string(code) + " " + msg)
		txt := makeText(elideJSON(e))
		s.event(Event{T: secs(t), Kind: "error", Dir: d.String(), Title: "error in answer to " + req.method, Text: &txt})
		return
	}
	rec.Label = "result of " + req.method
	res := m.result
	switch req.method {
	case "initialize":
		if d == acp.AgentToClient {
			s.agentInit = res
		}
	case "session/new":
		if id, ok := rawjson.GetString(res, "sessionId"); ok {
			s.addSession(id)
			rec.Brief = id
		}
	case "session/prompt":
		stop, _ := rawjson.GetString(res, "stopReason")
		rec.Brief = stop
		s.event(Event{T: secs(t), Kind: "stop", Dir: d.String(), Title: "end of turn: " + stop})
	case "session/request_permission":
		outcome, _ := rawjson.GetString(res, "outcome", "outcome")
		answer := outcome
		if oid, ok := rawjson.GetString(res, "outcome", "optionId"); ok {
			answer = oid
			if name := req.opts[oid]; name != "" {
				answer = name + " (" + oid + ")"
			}
		}
		rec.Brief = answer
		if req.event >= 0 && req.event < len(s.conv) {
			s.conv[req.event].Answer = answer
			s.conv[req.event].AnswerT = secs(t)
		}
	}
}

// update handles a session/update notification.
func (s *side) update(t time.Duration, d acp.Direction, m message, rec *msgRec) {
	// parseMessage validated the line: walks below trust it, so a large
	// snapshot costs a memchr, not another validation.
	upd, _ := rawjson.TrustedGet(m.params, "update")
	var kind, id string
	var fields [][2][]byte
	rawjson.TrustedMembers(upd, func(key, val []byte) bool {
		switch string(key) {
		case "sessionUpdate":
			kind, _ = rawjson.Unquote(val)
		case "toolCallId":
			id, _ = rawjson.Unquote(val)
		}
		fields = append(fields, [2][]byte{key, val})
		return true
	})
	rec.Label = "session/update " + kind
	switch kind {
	case "tool_call", "tool_call_update":
		s.closeMessage() // text after a tool call is a new message
		if id == "" {
			return
		}
		c := s.calls[id]
		if c == nil {
			c = newCall(id, t)
			s.calls[id] = c
			s.callOrder = append(s.callOrder, c)
		}
		rec.call = id
		rec.Brief = brief(c.apply(t, fields, m.line, s.cur))
	case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
		ev := map[string]string{"agent_message_chunk": "agent", "agent_thought_chunk": "thought", "user_message_chunk": "user"}[kind]
		block, _ := rawjson.Get(upd, "content")
		text := blockText(block)
		rec.Brief = brief(text)
		if s.convOpen < 0 || s.conv[s.convOpen].Kind != ev {
			s.closeMessage()
			s.convText = &textAcc{}
			s.conv = append(s.conv, Event{T: secs(t), Kind: ev, Dir: d.String()})
			s.convOpen = len(s.conv) - 1
		}
		s.convText.write([]byte(text))
		txt := s.convText.text()
		s.conv[s.convOpen].Text = &txt
	case "plan":
		entries, _ := rawjson.Get(upd, "entries")
		var b strings.Builder
		_ = rawjson.Elements(entries, func(_ int, e []byte) bool {
			status, _ := rawjson.GetString(e, "status")
			content, _ := rawjson.GetString(e, "content")
			b.WriteString("[" + status + "] " + content + "\n")
			return true
		})
		txt := makeText([]byte(b.String()))
		s.event(Event{T: secs(t), Kind: "plan", Dir: d.String(), Text: &txt})
	default:
		if len(upd) < 400 {
			rec.Brief = brief(string(upd))
		}
	}
}

// event appends a conversation entry and returns its index.
func (s *side) event(e Event) int {
	s.closeMessage()
	s.conv = append(s.conv, e)
	s.budget(len(s.conv) - 1)
	return len(s.conv) - 1
}

// closeMessage ends the agent/thought/user message being appended to, if
// any: what comes next is a new entry.
func (s *side) closeMessage() {
	if s.convOpen >= 0 {
		s.budget(s.convOpen)
		s.convOpen = -1
	}
}

// budget counts conversation entry i's text against convBudget; past it,
// the text is cut to its first and last lines (a long session's thousands
// of messages must not make a page of tens of megabytes).
func (s *side) budget(i int) {
	t := s.conv[i].Text
	if t == nil {
		return
	}
	if s.convBytes > convBudget {
		if short, cut := shorten(*t, 3, 200); cut {
			s.conv[i].Text = &short
			t = &short
		}
	}
	s.convBytes += len(t.Text) + len(t.Tail)
}

func (s *side) addSession(id string) {
	for _, have := range s.sessionIDs {
		if have == id {
			return
		}
	}
	s.sessionIDs = append(s.sessionIDs, id)
}

func (s *side) addMsg(r msgRec) {
	s.msgN++
	if len(s.msgHead) < MaxMessages/2 {
		s.msgHead = append(s.msgHead, r)
		return
	}
	if len(s.msgTail) < MaxMessages/2 {
		s.msgTail = append(s.msgTail, r)
		return
	}
	s.msgTail[(s.msgN-1-MaxMessages/2)%(MaxMessages/2)] = r
}

// messages are the kept messages in order.
func (s *side) messages() []msgRec {
	out := append([]msgRec(nil), s.msgHead...)
	if s.msgN <= MaxMessages {
		return append(out, s.msgTail...)
	}
	start := (s.msgN - MaxMessages/2) % (MaxMessages / 2)
	out = append(out, s.msgTail[start:]...)
	return append(out, s.msgTail[:start]...)
}

// shorten cuts t to its first and last n lines of at most maxBytes each,
// and reports whether that left anything out.
func shorten(t Text, n, maxBytes int) (Text, bool) {
	head := firstLines([]byte(t.Text), n, maxBytes)
	rest := t.Tail
	if rest == "" && t.OmittedBytes == 0 {
		rest = t.Text[len(head):] // whole: the end of what follows the head
	}
	tail := lastLines([]byte(rest), n, maxBytes)
	shown := int64(len(head) + len(tail))
	if shown >= t.Bytes {
		return t, false
	}
	lines := int64(bytes.Count(head, []byte{'\n'}) + bytes.Count(tail, []byte{'\n'}))
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		lines++
	}
	return Text{Text: validUTF8(head), Tail: validUTF8(tail), Bytes: t.Bytes, Lines: t.Lines,
		OmittedBytes: t.Bytes - shown, OmittedLines: max(0, t.Lines-lines)}, true
}

// blocksText is the text of an array of content blocks.
func blocksText(arr []byte) string {
	var b strings.Builder
	_ = rawjson.Elements(arr, func(n int, block []byte) bool {
		if n > 0 {
			b.WriteString("\n")
		}
		b.WriteString(blockText(block))
		return true
	})
	return b.String()
}

// blockText is a content block's text, or a note of what it is.
func blockText(block []byte) string {
	typ, _ := rawjson.GetString(block, "type")
	switch typ {
	case "text":
		s, _ := rawjson.GetString(block, "text")
		return s
	case "resource_link":
		name, _ := rawjson.GetString(block, "name")
		return "[link: " + name + "]"
	case "resource":
		uri, _ := rawjson.GetString(block, "resource", "uri")
		return "[resource: " + uri + "]"
	}
	return "[" + typ + "]"
}

// brief is s on one line, cut to briefRunes.
func brief(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > briefRunes {
		return string(r[:briefRunes]) + "…"
	}
	return s
}

// secs is d in seconds, to the microsecond.
func secs(d time.Duration) float64 { return float64(d.Microseconds()) / 1e6 }
