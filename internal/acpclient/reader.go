package acpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Line is one newline-terminated line the client received.
type Line struct {
	At   time.Time
	Size int    // bytes, without the '\n'
	Raw  []byte // without the '\n'; nil when dropped by Options.MaxRetainedBytes

	Method string          // empty for a response
	ID     json.RawMessage // nil for a notification
	// Update is params.update of a session/update notification.
	Update *UpdateHead
	Err    error // why the line is not a well-formed message; nil when it is
}

// UpdateHead is the part of a session/update every test looks at.
type UpdateHead struct {
	SessionUpdate string `json:"sessionUpdate"`
	ToolCallID    string `json:"toolCallId"`
}

// envelope is a JSON-RPC message as the reader decodes it: only what every
// line needs, so that a 1 MB update costs two passes of encoding/json (one
// to validate, one to decode) and no copies.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Update *UpdateHead `json:"update"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s %s", e.Code, e.Message, e.Data)
}

// readLoop reads the agent's stdout line by line until EOF or close. It is
// the only reader; it answers agent requests itself so that the agent never
// waits on the test goroutine.
func (c *Client) readLoop() {
	defer close(c.readDone)
	r := bufio.NewReaderSize(c.stdout, 1<<20)
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			c.handleLine(time.Now(), bytes.TrimSuffix(b, []byte{'\n'}), err == nil)
		}
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				err = io.EOF // our own cleanup closed the pipe
			}
			c.mu.Lock()
			c.readErr = err
			c.mu.Unlock()
			return
		}
	}
}

func (c *Client) handleLine(at time.Time, raw []byte, terminated bool) {
	l := Line{At: at, Size: len(raw), Raw: raw}
	var env envelope
	err := json.Unmarshal(raw, &env)
	// A type error (e.g. array params) still decodes the other fields, so
	// a request still gets its answer.
	var typeErr *json.UnmarshalTypeError
	decoded := err == nil || errors.As(err, &typeErr)
	switch {
	case !decoded:
		l.Err = fmt.Errorf("not JSON: %w", err)
	case err != nil:
		l.Err = fmt.Errorf("unexpected field type: %w", err)
	case !terminated:
		l.Err = errors.New("unterminated last line")
	}
	l.Method, l.ID = env.Method, env.ID
	if env.Method == "session/update" {
		l.Update = env.Params.Update
		if l.Update == nil && l.Err == nil {
			l.Err = errors.New("session/update without params.update")
		}
	}
	if c.opts.OnLine != nil {
		c.opts.OnLine(l)
	}
	c.record(&l)

	switch {
	case !decoded:
	case env.Method != "" && env.ID != nil:
		c.answerAgentRequest(env.Method, env.ID, raw)
	case env.Method == "" && env.ID != nil:
		c.deliver(env)
	}
}

// record appends l to the transcript, dropping its body past the budget,
// and files tool call updates under their id.
func (c *Client) record(l *Line) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.add(*l)
	if l.Err != nil {
		c.badLines = append(c.badLines, fmt.Sprintf("%v: %.200s", l.Err, l.Raw))
	}
	raw := l.Raw
	if max := c.opts.MaxRetainedBytes; max > 0 && c.retained+int64(l.Size) > max {
		l.Raw = nil
	} else {
		c.retained += int64(l.Size)
	}
	c.lines = append(c.lines, *l)
	if l.Update != nil && l.Update.ToolCallID != "" {
		tc := c.toolByID[l.Update.ToolCallID]
		if tc == nil {
			tc = &toolCallLines{id: l.Update.ToolCallID}
			c.toolByID[tc.id] = tc
			c.toolCalls = append(c.toolCalls, tc)
		}
		tc.count++
		tc.last = raw
		if l.Raw != nil {
			tc.lines = append(tc.lines, l.Raw)
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// toolCallLines are the received lines of one tool call; the update
// objects are cut out of them only when a test asks.
type toolCallLines struct {
	id    string
	lines [][]byte // retained lines
	count int      // all lines
	last  []byte   // the newest line, retained regardless of the budget
}

// deliver hands a response to the request waiting for it.
func (c *Client) deliver(env envelope) {
	key := compactID(env.ID)
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch == nil {
		c.problem("response to unknown id " + key)
		return
	}
	ch <- Response{Result: env.Result, Error: env.Error}
}

func compactID(id json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, id); err != nil {
		return string(id)
	}
	return b.String()
}
