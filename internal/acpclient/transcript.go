package acpclient

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
)

// Stats summarises what the client received.
type Stats struct {
	Bytes       int64 // all received bytes, newlines included
	Messages    int   // lines received
	LargestLine int   // bytes, without the '\n'
	First, Last time.Time
}

func (s *Stats) add(l Line) {
	s.Bytes += int64(l.Size) + 1
	s.Messages++
	if l.Size > s.LargestLine {
		s.LargestLine = l.Size
	}
	if s.First.IsZero() {
		s.First = l.At
	}
	s.Last = l.At
}

// ToolCall is every tool_call / tool_call_update with one toolCallId, in
// arrival order.
type ToolCall struct {
	ID      string
	Updates []json.RawMessage // the params.update objects that were retained
	Count   int               // all updates, retained or not
	Last    json.RawMessage   // the newest update, always retained
}

// Lines returns every received line in order.
func (c *Client) Lines() []Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Line(nil), c.lines...)
}

// Sent returns every line the client wrote, each with its '\n'.
func (c *Client) Sent() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.sent...)
}

// Stats returns the totals so far.
func (c *Client) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// ToolCalls returns the tool calls in order of their first update.
func (c *Client) ToolCalls() []ToolCall {
	c.t.Helper()
	c.mu.Lock()
	recs := make([]toolCallLines, len(c.toolCalls))
	for i, tc := range c.toolCalls {
		recs[i] = *tc
	}
	c.mu.Unlock()
	out := make([]ToolCall, len(recs))
	for i, rec := range recs {
		out[i] = ToolCall{ID: rec.id, Count: rec.count, Last: c.updateOf(rec.last)}
		for _, line := range rec.lines {
			out[i].Updates = append(out[i].Updates, c.updateOf(line))
		}
	}
	return out
}

// updateOf cuts params.update out of a session/update line; the reader
// already decoded the line once, so it cannot fail.
func (c *Client) updateOf(line []byte) json.RawMessage {
	c.t.Helper()
	var n struct {
		Params struct {
			Update json.RawMessage `json:"update"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &n); err != nil {
		c.fail("re-decode session/update: %v", err)
	}
	return n.Params.Update
}

// ToolCall returns the tool call with id, or fails the test.
func (c *Client) ToolCall(id string) ToolCall {
	c.t.Helper()
	for _, tc := range c.ToolCalls() {
		if tc.ID == id {
			return tc
		}
	}
	c.fail("no tool call %q", id)
	return ToolCall{}
}

// PermissionRequests returns the params of every session/request_permission.
func (c *Client) PermissionRequests() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.perms...)
}

// Problems lists lines that were not JSON-RPC, responses to unknown ids and
// failed writes; a healthy run has none.
func (c *Client) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.badLines...)
}

// InitializeResult is the result of the last Initialize.
func (c *Client) InitializeResult() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initResult
}

// WaitLine waits for a received line, past or future, that matches and
// returns it; it fails the test on timeout or end of output.
func (c *Client) WaitLine(what string, match func(Line) bool) Line {
	c.t.Helper()
	timer := time.NewTimer(c.opts.Timeout)
	defer timer.Stop()
	seen := 0
	for {
		c.mu.Lock()
		lines, changed := c.lines[seen:], c.changed
		seen = len(c.lines)
		c.mu.Unlock()
		for _, l := range lines {
			if match(l) {
				return l
			}
		}
		select {
		case <-changed:
		case <-c.readDone:
			c.mu.Lock()
			more := len(c.lines) > seen
			c.mu.Unlock()
			if !more {
				c.fail("agent stdout ended before %s", what)
				return Line{}
			}
		case <-timer.C:
			c.fail("no %s after %v", what, c.opts.Timeout)
			return Line{}
		}
	}
}

// tailLines is how many received lines a failure message shows.
const tailLines = 15

// fail ends the test with the transcript tail and the agent's stderr.
func (c *Client) fail(format string, args ...any) {
	c.t.Helper()
	c.awaitExitAfterEOF()
	require.FailNowf(c.t, fmt.Sprintf(format, args...), "acpclient %q\n%s", c.opts.Argv, c.Report())
}

// awaitExitAfterEOF gives an agent whose stdout has ended the time to exit
// before a failure is reported: exec copies its stderr until Wait returns,
// so the reason it printed on the way out (a crash, a stack) would be
// missing from the report otherwise.
func (c *Client) awaitExitAfterEOF() {
	select {
	case <-c.readDone:
	default:
		return // still reading: the agent is alive and answering
	}
	select {
	case <-c.waitDone:
	case <-time.After(exitAfterEOF):
	}
}

// exitAfterEOF bounds that wait: generous, since it is paid only on the way
// to a failure, by an agent that closed stdout but lives on.
const exitAfterEOF = 10 * time.Second

// Report describes the connection for a failure message: totals, problems,
// the last received lines (shortened) and the tail of stderr.
func (c *Client) Report() string {
	var b strings.Builder
	c.mu.Lock()
	fmt.Fprintf(&b, "received %d lines, %d bytes; read: %v\n", c.stats.Messages, c.stats.Bytes, c.readErr)
	for _, p := range c.badLines {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	for _, s := range tail(c.sent, tailLines) {
		fmt.Fprintf(&b, "sent: %s\n", shorten(strings.TrimSuffix(string(s), "\n"), 400))
	}
	for _, l := range tail(c.lines, tailLines) {
		fmt.Fprintf(&b, "got +%v: %s\n", l.At.Sub(c.started).Round(time.Millisecond), shorten(string(l.Raw), 400))
	}
	c.mu.Unlock()
	stderr := c.Stderr()
	fmt.Fprintf(&b, "agent stderr (tail):\n%s", stderr[max(0, len(stderr)-4000):])
	return b.String()
}

func tail[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// shorten keeps the head and tail of s.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max/2] + fmt.Sprintf(" …[%d bytes]… ", len(s)-max) + s[len(s)-max/2:]
}
