package acp

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The head of a session/update, read from its bytes: the session's id,
// where the update starts and its kind when it begins with it; a line of
// another shape, or whose id or kind is escaped, is not read.
func TestReadUpdateHead(t *testing.T) {
	const chunk = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a \"tool_call\""}}}}`
	for _, c := range []struct {
		line           string
		ok             bool
		sid, kind      string
		text, toolCall bool
	}{
		{chunk, true, "s1", "agent_message_chunk", true, false},
		{strings.Replace(chunk, "agent_message_chunk", "agent_thought_chunk", 1), true, "s1", "agent_thought_chunk", true, false},
		{strings.Replace(chunk, "agent_message_chunk", "user_message_chunk", 1), true, "s1", "user_message_chunk", true, false},
		{strings.Replace(chunk, "agent_message_chunk", "agent_message_chunks", 1), true, "s1", "agent_message_chunks", false, false},
		{strings.Replace(chunk, "agent_message_chunk", "tool_call_update", 1), true, "s1", "tool_call_update", false, true},
		{strings.Replace(chunk, "agent_message_chunk", "tool_call", 1), true, "s1", "tool_call", false, true},
		{strings.Replace(chunk, "agent_message_chunk", `agent_message_chunk\u0022`, 1), true, "s1", "", false, true},
		{strings.Replace(chunk, `"update":{"sessionUpdate"`, `"update":{"_meta":{},"sessionUpdate"`, 1), true, "s1", "", false, true},
		{strings.Replace(chunk, `"s1"`, `"s\"1"`, 1), false, "", "", false, false},
		{strings.Replace(chunk, `"sessionId":"s1",`, ``, 1), false, "", "", false, false},
		{strings.Replace(chunk, "session/update", "session/updates", 1), false, "", "", false, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false, "", "", false, false},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_mess`, true, "s1", "", false, true},
	} {
		h, ok := ReadUpdateHead([]byte(c.line))
		assert.Equal(t, c.ok, ok, c.line)
		if !ok {
			continue
		}
		assert.Equal(t, c.sid, string(h.SessionID), c.line)
		assert.Equal(t, c.kind, string(h.Kind), c.line)
		assert.Equal(t, `{`, c.line[h.Update:h.Update+1], c.line)
		assert.Equal(t, c.text, h.TextChunk(), c.line)
		assert.Equal(t, c.toolCall, h.ToolCall(), c.line)
		if h.Kind != nil {
			assert.Equal(t, `"`+c.kind+`"`, c.line[h.Len-len(c.kind)-2:h.Len], c.line)
		} else {
			assert.Equal(t, h.Update, h.Len, c.line)
		}
		again, _ := ReadUpdateHead([]byte(c.line[:h.Len] + "tail"))
		assert.Equal(t, h, again, "the head is its first Len bytes: %s", c.line)
	}
}

// The method of a request or notification that begins with it, read from
// its bytes: when the line names it once, unescaped, it is what a parse
// reads, and otherwise nothing is read.
func TestReadMethodHead(t *testing.T) {
	for _, c := range []struct {
		line, method string
		ok           bool
	}{
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, "session/cancel", true},
		{`{"jsonrpc":"2.0","method":"session/prompt","id":3,"params":{"prompt":[{"type":"text","text":"a method"}]}}`, "session/prompt", true},
		{`{"jsonrpc":"2.0","method":"x","params":{},"method":"session/new"}`, "", false},
		{`{"jsonrpc":"2.0","method":"x","params":{"text":"say \"method\""}}`, "x", true},
		{`{"jsonrpc":"2.0","method":"x","params":{"a":"method"}}`, "", false},
		{`{"jsonrpc":"2.0","method":"session\/new","id":1}`, "", false},
		{`{"jsonrpc":"2.0","id":1,"method":"session/new"}`, "", false},
		{`{"jsonrpc": "2.0","method":"session/new","id":1}`, "", false},
		{`{"jsonrpc":"2.0","method":"` + strings.Repeat("m", 200) + `"}`, "", false},
	} {
		method, ok := ReadMethodHead([]byte(c.line))
		assert.Equal(t, c.ok, ok, c.line)
		assert.Equal(t, c.method, string(method), c.line)
		if ok {
			m := NewMessage(ClientToAgent, []byte(c.line), time.Time{})
			assert.Equal(t, c.method, m.Method(), "what a parse reads: %s", c.line)
		}
	}
}
