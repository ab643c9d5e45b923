package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/testbin"
	acp "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests prove that acp-proxy interoperates with the official Go SDK's
// typed peers (github.com/coder/acp-go-sdk): internal/sdkagent is an agent
// built on its AgentSideConnection, sdkClient below an editor built on its
// ClientSideConnection. Each scenario runs first with the client talking to
// the agent directly, the baseline that proves the assertions hold for the
// SDK peers themselves, then through the proxy with no filter and with
// every filter, and through two nested proxies.
//
// What the SDK client guarantees about order (connection.go, v0.13.0):
// notifications are handled one at a time, in arrival order, on one
// goroutine; a response is returned only after every notification that
// arrived before it has been handled; but each request from the agent
// (session/request_permission) is handled on a goroutine of its own, in no
// order with the notifications. So the updates a handler records are in
// arrival order and complete when Prompt returns. That snapshot misses an
// update that overtook the response only when the SDK happens to handle it
// late, so order itself, and where the permission request arrived, is read
// from the bytes the client received (wireLog).

// sdkAgent is internal/sdkagent, built.
func sdkAgent(t testing.TB) string { return testbin.Build(t, "./internal/sdkagent") }

// sdkRoute is one way from the client to the agent.
type sdkRoute struct {
	name string
	argv []string
	// exact: no filter on the way, so the client must receive the very
	// bytes it receives from the agent directly.
	exact bool
}

func sdkRoutes(t testing.TB) []sdkRoute {
	// Each proxy gives the agent a minute after EOF (--grace 1m): the
	// agent exits on EOF by itself, and a slow machine must not see it
	// stopped (exit 143) instead.
	agent, proxy := sdkAgent(t), []string{proxyBin(t), "--grace", "1m"}
	via := func(args ...string) []string { return append(append([]string{}, proxy...), args...) }
	return []sdkRoute{
		{"direct", []string{agent}, true}, // first: the baseline
		{"proxy", via("--", agent), true},
		{"proxy with every filter", via("--terminal-output", "--deltas", "--shell-to-patch", "--", agent), false},
		{"nested proxies", via(append(append([]string{"--"}, proxy...), "--", agent)...), true},
	}
}

func TestSDKClientAndAgentRunATurnThroughTheProxy(t *testing.T) {
	var baseline []byte
	for _, r := range sdkRoutes(t) {
		t.Run(r.name, func(t *testing.T) {
			client := &sdkClient{}
			s := startSDK(t, r.argv, client)
			sid := s.open(t)

			resp, err := s.conn.Prompt(s.ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("run the tests")}})
			updates, perms := client.recorded() // as they were when Prompt returned
			require.NoError(t, err)
			assert.Equal(t, acp.StopReasonEndTurn, resp.StopReason)
			if r.exact {
				assert.Equal(t, wantTurn(t, sid), asJSON(t, updates), "every update, in order, before the prompt response")
			} else {
				// --deltas may leave out members the client holds already
				// and coalesce snapshots: what the client shows at the end
				// is the same.
				assert.Equal(t, shownState(t, wantTurn(t, sid)), shownState(t, asJSON(t, updates)), "what the client shows when the prompt response arrives")
			}
			require.Len(t, perms, 1, "one permission request")
			assert.Equal(t, sid, perms[0].SessionId)
			assert.Equal(t, acp.ToolCallId("call_1"), perms[0].ToolCall.ToolCallId)
			assert.Equal(t, []acp.PermissionOptionId{"allow", "reject"}, optionIDs(perms[0]))
			// The agent went on to run the command: it got "allow" back.

			s.close(t)
			wire := s.wire.bytes()
			order := []string{
				"response 1", // initialize
				"response 2", // session/new
				"update agent_message_chunk",
				"update tool_call",
				"request session/request_permission",
				"update tool_call_update",
				"update tool_call_update",
				"update tool_call_update",
				"update tool_call_update",
				"response 3", // session/prompt
			}
			if r.exact {
				assert.Equal(t, order, wireOrder(t, wire), "what the client read, in order")
			} else {
				assert.Equal(t, slices.Compact(order), slices.Compact(wireOrder(t, wire)), "what the client read, in order (some updates coalesced)")
			}
			switch {
			case r.name == "direct":
				baseline = wire
			case r.exact:
				require.NotNil(t, baseline, "the direct baseline ran")
				sameBytes(t, baseline, wire)
			}
		})
	}
}

func TestSDKClientCancelsATurnThroughTheProxy(t *testing.T) {
	for _, r := range sdkRoutes(t) {
		t.Run(r.name, func(t *testing.T) {
			client := &sdkClient{cancel: true}
			s := startSDK(t, r.argv, client)
			sid := s.open(t)

			resp, err := s.conn.Prompt(s.ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("run the tests")}})
			updates, perms := client.recorded()
			require.NoError(t, err)
			assert.Equal(t, acp.StopReasonCancelled, resp.StopReason)
			assert.Equal(t, wantTurn(t, sid)[:2], asJSON(t, updates), "the updates before the permission request, none after")
			assert.Len(t, perms, 1)

			s.close(t)
			// The agent's SDK may also send $/cancel_request for its
			// permission request: after session/cancel it is a race between
			// the cancelled context and the answer, both already sent.
			var order []string
			for _, n := range wireOrder(t, s.wire.bytes()) {
				if n != "request $/cancel_request" {
					order = append(order, n)
				}
			}
			assert.Equal(t, []string{
				"response 1",
				"response 2",
				"update agent_message_chunk",
				"update tool_call",
				"request session/request_permission",
				"response 3",
			}, order)
		})
	}
}

// wantTurn is the turn internal/sdkagent runs when the client allows its
// command, as the SDK client decodes it, in JSON (see asJSON).
func wantTurn(t *testing.T, sid acp.SessionId) []string {
	const cmd = "go test ./..."
	text := func(s string) []acp.ToolCallContent {
		return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(s))}
	}
	running := func(output string) acp.SessionUpdate {
		return acp.UpdateToolCall("call_1", acp.WithUpdateStatus(acp.ToolCallStatusInProgress), acp.WithUpdateContent(text(output)))
	}
	updates := []acp.SessionUpdate{
		acp.UpdateAgentMessageText("Running the tests."),
		acp.StartToolCall("call_1", cmd,
			acp.WithStartKind(acp.ToolKindExecute),
			acp.WithStartStatus(acp.ToolCallStatusPending),
			acp.WithStartRawInput(map[string]any{"command": []string{"bash", "-lc", cmd}}),
			acp.WithStartContent(text("$ "+cmd))),
		running("ok  \tpkg/a\n"),
		running("ok  \tpkg/a\nok  \tpkg/b\n"),
		running("ok  \tpkg/a\nok  \tpkg/b\nok  \tpkg/c\n"),
		acp.UpdateToolCall("call_1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted), acp.WithUpdateRawOutput(map[string]any{"exit_code": 0})),
	}
	sent := make([]acp.SessionNotification, len(updates))
	for i, u := range updates {
		// Through JSON, as the agent sends it and the client decodes it
		// ([]string becomes []any, 0 becomes float64(0)).
		b, err := json.Marshal(acp.SessionNotification{SessionId: sid, Update: u})
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &sent[i]))
	}
	return asJSON(t, sent)
}

// shownState folds notifications (asJSON's) into what a client shows: the
// other updates in order, and each tool call's members as the latest update
// carrying each one set them (a member an update leaves out is unchanged).
func shownState(t *testing.T, ns []string) []string {
	t.Helper()
	var out []string
	calls := map[string]map[string]json.RawMessage{}
	var order []string
	for _, n := range ns {
		var msg struct {
			Update map[string]json.RawMessage `json:"update"`
		}
		require.NoError(t, json.Unmarshal([]byte(n), &msg))
		var id string
		if json.Unmarshal(msg.Update["toolCallId"], &id) != nil {
			out = append(out, n)
			continue
		}
		c := calls[id]
		if c == nil {
			c = map[string]json.RawMessage{}
			calls[id] = c
			order = append(order, id)
		}
		for k, v := range msg.Update {
			if k != "sessionUpdate" {
				c[k] = v
			}
		}
	}
	for _, id := range order {
		b, err := json.Marshal(calls[id])
		require.NoError(t, err)
		out = append(out, string(b))
	}
	return out
}

// asJSON shows decoded notifications as the SDK encodes them: equal for
// equal values, and a readable diff when not.
func asJSON(t *testing.T, ns []acp.SessionNotification) []string {
	t.Helper()
	out := make([]string, len(ns))
	for i, n := range ns {
		b, err := json.Marshal(n)
		require.NoError(t, err)
		out[i] = string(b)
	}
	return out
}

func optionIDs(p acp.RequestPermissionRequest) []acp.PermissionOptionId {
	var ids []acp.PermissionOptionId
	for _, o := range p.Options {
		ids = append(ids, o.OptionId)
	}
	return ids
}

// sdkSession is an SDK client connected to argv (the agent, or a proxy in
// front of it) over the process's pipes.
type sdkSession struct {
	ctx    context.Context
	conn   *acp.ClientSideConnection
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	wire   *wireLog
	stderr *bytes.Buffer
	logs   *lockedBuffer // what the SDK client logged at warn and above
}

func startSDK(t *testing.T, argv []string, client *sdkClient) *sdkSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	s := &sdkSession{ctx: ctx, cmd: exec.Command(argv[0], argv[1:]...), stderr: &bytes.Buffer{}, logs: &lockedBuffer{}}
	var err error
	s.stdin, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	s.cmd.Stderr = s.stderr
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })

	s.wire = &wireLog{r: stdout}
	s.conn = acp.NewClientSideConnection(client, s.stdin, s.wire)
	s.conn.SetLogger(slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	client.mu.Lock()
	client.conn = s.conn
	client.mu.Unlock()
	return s
}

// open initializes the connection and creates a session.
func (s *sdkSession) open(t *testing.T) acp.SessionId {
	t.Helper()
	init, err := s.conn.Initialize(s.ctx, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientInfo:      &acp.Implementation{Name: "sdk-interop-test", Version: "1.0.0"},
	})
	require.NoError(t, err)
	assert.Equal(t, acp.ProtocolVersion(acp.ProtocolVersionNumber), init.ProtocolVersion)
	assert.True(t, init.AgentCapabilities.PromptCapabilities.EmbeddedContext, "the agent's capabilities arrive")
	if assert.NotNil(t, init.AgentInfo) {
		assert.Equal(t, "sdkagent", init.AgentInfo.Name)
	}
	sess, err := s.conn.NewSession(s.ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	require.NoError(t, err)
	assert.Equal(t, acp.SessionId("sess-1"), sess.SessionId)
	return sess.SessionId
}

// close ends the session as an editor does, by closing the agent's stdin:
// the agent, and every proxy in front of it, exits 0, having written
// nothing to stderr, and the SDK client logged no problem.
func (s *sdkSession) close(t *testing.T) {
	t.Helper()
	require.NoError(t, s.stdin.Close())
	select {
	case <-s.conn.Done(): // read to EOF: Wait may close the pipe now
	case <-s.ctx.Done():
		require.FailNow(t, "the agent's stdout stayed open after its stdin closed")
	}
	require.NoError(t, s.cmd.Wait(), "stderr: %s", s.stderr)
	assert.Empty(t, s.stderr.String(), "stderr")
	assert.Empty(t, s.logs.String(), "the SDK client's log")
}

// sdkClient is the editor: the SDK's Client, recording what the agent sends.
type sdkClient struct {
	cancel bool // answer the permission request by cancelling the turn

	mu          sync.Mutex
	conn        *acp.ClientSideConnection
	updates     []acp.SessionNotification // in the order the SDK handled them: arrival order
	permissions []acp.RequestPermissionRequest
}

var _ acp.Client = (*sdkClient)(nil)

func (c *sdkClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	return nil
}

// RequestPermission allows the call, or cancels the turn as the spec says
// a client does: session/cancel, then "cancelled" for the pending request.
func (c *sdkClient) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.permissions = append(c.permissions, p)
	conn, cancel := c.conn, c.cancel
	c.mu.Unlock()
	if !cancel {
		return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected("allow")}, nil
	}
	if err := conn.Cancel(ctx, acp.CancelNotification{SessionId: p.SessionId}); err != nil {
		return acp.RequestPermissionResponse{}, err
	}
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, nil
}

// recorded returns copies of what the client has handled so far.
func (c *sdkClient) recorded() ([]acp.SessionNotification, []acp.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionNotification(nil), c.updates...), append([]acp.RequestPermissionRequest(nil), c.permissions...)
}

// The agent asks for nothing else; the client has no fs or terminal
// capability.

func (*sdkClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

func (*sdkClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

func (*sdkClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (*sdkClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (*sdkClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (*sdkClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (*sdkClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

// wireLog is the client's input as the SDK reads it: every byte, in the
// order it arrived, whatever goroutine the SDK then hands each message to.
type wireLog struct {
	r  io.Reader
	mu sync.Mutex
	b  []byte
}

func (w *wireLog) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.mu.Lock()
	w.b = append(w.b, p[:n]...)
	w.mu.Unlock()
	return n, err
}

func (w *wireLog) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.b)
}

// wireOrder names each line of a wire log: "update <sessionUpdate>",
// "request <method>" or "response <id>".
func wireOrder(t *testing.T, wire []byte) []string {
	t.Helper()
	var names []string
	for _, line := range bytes.SplitAfter(wire, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		require.True(t, bytes.HasSuffix(line, []byte("\n")), "an unterminated line: %q", line)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
				} `json:"update"`
			} `json:"params"`
		}
		require.NoError(t, json.Unmarshal(line, &m), "%s", line)
		switch {
		case m.Method == acp.ClientMethodSessionUpdate:
			names = append(names, "update "+m.Params.Update.SessionUpdate)
		case m.Method != "":
			names = append(names, "request "+m.Method)
		default:
			names = append(names, "response "+string(m.ID))
		}
	}
	return names
}

// lockedBuffer is a bytes.Buffer the SDK's goroutines may log to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
