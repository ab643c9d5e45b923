package view

import (
	"strings"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// chunkEvents are the conversation entries of the message chunks, by
// update kind.
var chunkEvents = map[string]string{"agent_message_chunk": "agent", "agent_thought_chunk": "thought", "user_message_chunk": "user"}

// update takes a session/update notification.
func (s *side) update(t time.Duration, m *acp.Message, rec *msgRec) {
	// A tool update's walk reads the update's kind too: a large
	// snapshot is walked once.
	u, isTool := m.ToolUpdate()
	kind := u.SessionUpdate
	if kind == "" {
		kind = m.UpdateKind()
	}
	rec.Label = "session/update " + kind
	switch kind {
	case "tool_call", "tool_call_update":
		s.closeMessage() // text after a tool call is a new message
		if isTool {
			s.toolUpdate(t, &u, m.Raw, rec)
		}
	case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
		s.chunk(t, m, chunkEvents[kind], rec)
	case "plan":
		s.plan(t, m)
	default:
		if upd := m.Update(); len(upd) < 400 {
			rec.Brief = brief(string(upd))
		}
	}
}

// toolUpdate applies a tool call's update to the call.
func (s *side) toolUpdate(t time.Duration, u *acp.ToolUpdate, line []byte, rec *msgRec) {
	c := s.calls[u.ID]
	if c == nil {
		c = newCall(u.ID, t)
		s.calls[u.ID] = c
		s.callOrder = append(s.callOrder, c)
	}
	rec.call = u.ID
	rec.Brief = brief(c.apply(t, u, line, s.cur))
}

// chunk appends a message chunk to the open message of its kind (ev), or
// opens one.
func (s *side) chunk(t time.Duration, m *acp.Message, ev string, rec *msgRec) {
	block, _ := rawjson.Get(m.Update(), "content")
	text := blockText(block)
	rec.Brief = brief(text)
	if s.convOpen < 0 || s.conv[s.convOpen].Kind != ev {
		s.closeMessage()
		s.convText = &textAcc{}
		s.conv = append(s.conv, Event{T: secs(t), Kind: ev, Dir: m.Dir.String()})
		s.convOpen = len(s.conv) - 1
	}
	s.convText.write([]byte(text))
	txt := s.convText.text()
	s.conv[s.convOpen].Text = &txt
}

// plan takes a plan update: its entries, one a line.
func (s *side) plan(t time.Duration, m *acp.Message) {
	entries, _ := rawjson.Get(m.Update(), "entries")
	var b strings.Builder
	_ = rawjson.Elements(entries, func(_ int, e []byte) bool {
		status, _ := rawjson.GetString(e, "status")
		content, _ := rawjson.GetString(e, "content")
		b.WriteString("[" + status + "] " + content + "\n")
		return true
	})
	txt := makeText([]byte(b.String()))
	s.event(Event{T: secs(t), Kind: "plan", Dir: m.Dir.String(), Text: &txt})
}
