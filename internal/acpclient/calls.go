package acpclient

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// Response is the answer to one client request.
type Response struct {
	Result json.RawMessage
	Error  *RPCError
}

// Pending is a request in flight.
type Pending struct {
	c      *Client
	method string
	ch     chan Response
}

// Send writes a request and returns without waiting for its response.
func (c *Client) Send(method string, params any) *Pending {
	c.t.Helper()
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	ch := make(chan Response, 1)
	c.pending[fmt.Sprint(id)] = ch
	c.mu.Unlock()
	c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return &Pending{c: c, method: method, ch: ch}
}

// Wait returns the response. It fails the test if the agent stops writing
// or Options.Timeout passes first, so call it from the test goroutine.
func (p *Pending) Wait() Response {
	p.c.t.Helper()
	timer := time.NewTimer(p.c.opts.Timeout)
	defer timer.Stop()
	select {
	case r := <-p.ch:
		return r
	case <-p.c.readDone:
		// The response may have been delivered just before EOF.
		select {
		case r := <-p.ch:
			return r
		default:
		}
		p.c.fail("agent stdout ended before the %s response", p.method)
	case <-timer.C:
		p.c.fail("no %s response after %v", p.method, p.c.opts.Timeout)
	}
	return Response{}
}

// Call sends a request and waits for a successful result; an error
// response fails the test.
func (c *Client) Call(method string, params any) json.RawMessage {
	c.t.Helper()
	r := c.Send(method, params).Wait()
	if r.Error != nil {
		c.fail("%s: %v", method, r.Error)
	}
	return r.Result
}

// Initialize sends initialize with protocol version 1 and the configured
// capabilities and returns the result.
func (c *Client) Initialize() json.RawMessage {
	c.t.Helper()
	res := c.Call("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": json.RawMessage(c.opts.Capabilities),
		"clientInfo":         map[string]any{"name": "acpclient", "title": "acp-proxy test client", "version": "0.0.0"},
	})
	c.mu.Lock()
	c.initResult = res
	c.mu.Unlock()
	return res
}

// NewSession sends session/new for cwd with no MCP servers and returns the
// session id.
func (c *Client) NewSession(cwd string) string {
	c.t.Helper()
	res := c.Call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	var out struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &out); err != nil || out.SessionID == "" {
		c.fail("session/new: no sessionId in %.300s (%v)", res, err)
	}
	return out.SessionID
}

// Prompt sends a text prompt and waits for the turn to end; it returns the
// stop reason.
func (c *Client) Prompt(sessionID, text string) string {
	c.t.Helper()
	res := c.Call("session/prompt", map[string]any{
		"sessionId": sessionID,
		"prompt":    []any{map[string]any{"type": "text", "text": text}},
	})
	var out struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		c.fail("session/prompt: decode %.300s: %v", res, err)
	}
	return out.StopReason
}

// Run starts the agent, initializes, opens a session in opts.Dir and runs
// one prompt turn. The client is returned for inspection.
func Run(t testing.TB, opts Options, prompt string) *Client {
	t.Helper()
	c := Start(t, opts)
	c.Initialize()
	sid := c.NewSession(opts.Dir)
	if stop := c.Prompt(sid, prompt); stop != "end_turn" {
		c.fail("prompt ended with stopReason %q, want end_turn", stop)
	}
	return c
}

// answerAgentRequest answers a request from the agent: a permission request
// with the first allow option, anything else with -32601.
func (c *Client) answerAgentRequest(method string, id json.RawMessage, raw []byte) {
	if method != "session/request_permission" {
		c.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
			"code": -32601, "message": "Method not found: " + method,
		}})
		return
	}
	var req struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		c.problem(fmt.Sprintf("permission request params: %v", err))
	}
	c.mu.Lock()
	c.perms = append(c.perms, req.Params)
	c.mu.Unlock()
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	outcome := map[string]any{"outcome": "cancelled"}
	if err := json.Unmarshal(req.Params, &p); err == nil {
		for _, o := range p.Options {
			if o.Kind == "allow_once" || o.Kind == "allow_always" {
				outcome = map[string]any{"outcome": "selected", "optionId": o.OptionID}
				break
			}
		}
	}
	c.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"outcome": outcome}})
}

// write sends one message as one line. Write errors are kept, not fatal:
// the reader or a timeout reports the broken agent with more context.
func (c *Client) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("acpclient: marshal %T: %v", msg, err)) // our own maps; a bug here
	}
	b = append(b, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.mu.Lock()
	c.sent = append(c.sent, b)
	c.mu.Unlock()
	if _, err := c.stdin.Write(b); err != nil {
		c.problem(fmt.Sprintf("write to agent stdin: %v", err))
	}
}

// problem records something a healthy run never does, for Problems.
func (c *Client) problem(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.badLines = append(c.badLines, p)
}
