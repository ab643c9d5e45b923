package view

import (
	"bytes"
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
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

	requests *requests // each request until its response

	badLines              int    // lines that are not JSON objects
	convBytes             int    // text in conv, for convBudget
	clientInit, agentInit []byte // initialize params and result
	sessionIDs            []string
	cwd                   string
	recording             *Recording // how the connection was recorded, when the trace says
}

type point struct {
	t time.Duration
	n int32
}

type msgRec struct {
	Msg
	call string
}

func newSide() *side {
	return &side{
		calls:    map[string]*callAcc{},
		convOpen: -1,
		requests: newRequests(),
	}
}

// feed takes one line that crossed in direction d at t; valid says it is
// known to be valid JSON (the trace reader checked it).
func (s *side) feed(t time.Duration, d acp.Direction, line []byte, valid bool) {
	if !s.seen || t < s.first {
		s.first = t
	}
	s.seen = true
	s.last = max(s.last, t)
	s.dirs[d].Line(len(line))
	s.points[d] = append(s.points[d], point{t, int32(min(len(line)+1, 1<<31-1))})

	rec := msgRec{Msg: Msg{T: secs(t), Dir: int(d), Bytes: len(line) + 1, Call: -1, Src: s.cur.line, Timer: s.cur.timer}}
	m := acp.NewMessage(d, line, time.Time{})
	// A line the trace reader did not check (a string of a record's
	// "out") is checked in full, escapes included.
	if !m.Valid() || !valid && !m.Checked() {
		s.notMessage(t, d, line, &rec)
	} else {
		s.message(t, m, &rec)
	}
	s.addMsg(rec)
}

// notMessage takes a line that is not a JSON object.
func (s *side) notMessage(t time.Duration, d acp.Direction, line []byte, rec *msgRec) {
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
}

// message takes a JSON object: a request or notification (it has a
// method), a response (an id and no method), or neither.
func (s *side) message(t time.Duration, m *acp.Message, rec *msgRec) {
	s.requests.Observe(m)
	switch {
	case m.Method() != "":
		rec.Label = m.Method()
		s.request(t, m, rec)
	case m.ID() != nil:
		req, ok := s.requests.Answered(m)
		if !ok {
			req = &request{Method: "?", event: -1}
		}
		s.response(t, m, req, rec)
	default:
		rec.Label = "(no method, no id)"
	}
}

// event appends a conversation entry and returns its index.
func (s *side) event(e Event) int {
	s.closeMessage()
	s.conv = append(s.conv, e)
	s.budget(len(s.conv) - 1)
	return len(s.conv) - 1
}

// note takes a filter's decision that the trace kept (a "note" record: the
// policy's): an entry of the conversation, about its call, where it was
// taken among the messages.
func (s *side) note(t time.Duration, d acp.Direction, n *filters.Note) {
	ev := Event{T: secs(t), Kind: "note", Dir: d.String(), Call: n.ToolCallID, Title: n.Filter + ": " + n.Event}
	if n.Detail != "" {
		txt := makeText([]byte(n.Detail))
		ev.Text = &txt
	}
	s.event(ev)
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
