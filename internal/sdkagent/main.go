// Command sdkagent is an ACP agent built the way a third party builds one:
// on the official Go SDK (github.com/coder/acp-go-sdk), with its typed
// AgentSideConnection over stdin/stdout. The relay's interoperability tests
// drive it with the SDK's own client, directly and through acp-proxy, so
// both peers are the SDK's reading of the protocol, not ours.
//
// Every prompt turn runs one script: an agent_message_chunk; an execute
// tool_call (pending, with content); a session/request_permission for it.
// If the client allows it, one tool_call_update (in_progress) per output
// snapshot, then one that completes the call with a rawOutput, and the turn
// ends with end_turn. A rejection fails the call; a cancelled outcome or a
// session/cancel ends the turn with cancelled.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
)

// The script's tool call. cmd/acp-proxy/sdk_interop_test.go expects exactly
// these values.
const (
	callID  = acp.ToolCallId("call_1")
	command = "go test ./..."
)

// snapshots is the command's output as it grows, one tool_call_update
// each: accumulated, the way agents without the terminal extension stream.
var snapshots = []string{
	"ok  \tpkg/a\n",
	"ok  \tpkg/a\nok  \tpkg/b\n",
	"ok  \tpkg/a\nok  \tpkg/b\nok  \tpkg/c\n",
}

func main() {
	a := &agent{}
	conn := acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	// Only problems on stderr: the SDK logs "connection closed" at info.
	conn.SetLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a.conn.Store(conn)
	<-conn.Done() // the client closed stdin
}

type agent struct {
	// conn is set right after the connection starts reading; only Prompt
	// uses it, and no prompt comes before initialize and session/new.
	conn     atomic.Pointer[acp.AgentSideConnection]
	sessions atomic.Int64
}

var _ acp.Agent = (*agent)(nil)

func (a *agent) Initialize(_ context.Context, _ acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
		},
		AgentInfo:   &acp.Implementation{Name: "sdkagent", Version: "1.0.0"},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// unsupported is the answer to a method the agent does not implement.
func unsupported[Response any](method string) (Response, error) {
	var none Response
	return none, acp.NewMethodNotFound(method)
}

// Authenticate is not a method of this agent: it needs no authentication.
func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return unsupported[acp.AuthenticateResponse](acp.AgentMethodAuthenticate)
}

func (a *agent) NewSession(_ context.Context, _ acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: acp.SessionId(fmt.Sprintf("sess-%d", a.sessions.Add(1)))}, nil
}

// CloseSession, ListSessions and ResumeSession are not methods of this
// agent: its sessions end with the connection.
func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return unsupported[acp.CloseSessionResponse](acp.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return unsupported[acp.ListSessionsResponse](acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return unsupported[acp.ResumeSessionResponse](acp.AgentMethodSessionResume)
}

// Cancel has nothing to do: on session/cancel the SDK cancels the context
// of the session's running Prompt before it calls Cancel.
func (a *agent) Cancel(_ context.Context, _ acp.CancelNotification) error { return nil }

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	t := turn{conn: a.conn.Load(), session: p.SessionId}
	reason, err := t.run(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		// A send or request failed because the client cancelled the turn
		// (the SDK cancels ctx): the turn ends cancelled, not in error.
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case err != nil:
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: reason}, nil
}

// SetSessionMode and SetSessionConfigOption are not methods of this agent:
// its sessions have no modes and no config options.
func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return unsupported[acp.SetSessionModeResponse](acp.AgentMethodSessionSetMode)
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return unsupported[acp.SetSessionConfigOptionResponse](acp.AgentMethodSessionSetConfigOption)
}
