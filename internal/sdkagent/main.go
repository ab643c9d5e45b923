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

func (a *agent) NewSession(_ context.Context, _ acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: acp.SessionId(fmt.Sprintf("sess-%d", a.sessions.Add(1)))}, nil
}

// Cancel has nothing to do: on session/cancel the SDK cancels the context
// of the session's running Prompt before it calls Cancel.
func (a *agent) Cancel(_ context.Context, _ acp.CancelNotification) error { return nil }

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	conn := a.conn.Load()
	send := func(u acp.SessionUpdate) error {
		return conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: p.SessionId, Update: u})
	}
	// stop ends the turn after a failed send or request: cancelled if the
	// client cancelled it (the SDK cancels ctx), else an error response.
	stop := func(err error) (acp.PromptResponse, error) {
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		return acp.PromptResponse{}, err
	}
	output := func(text string) []acp.ToolCallContent {
		return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))}
	}

	if err := send(acp.UpdateAgentMessageText("Running the tests.")); err != nil {
		return stop(err)
	}
	if err := send(acp.StartToolCall(callID, command,
		acp.WithStartKind(acp.ToolKindExecute),
		acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartRawInput(map[string]any{"command": []string{"bash", "-lc", command}}),
		acp.WithStartContent(output("$ "+command)),
	)); err != nil {
		return stop(err)
	}
	perm, err := askToRun(ctx, conn, p.SessionId)
	switch {
	case err != nil:
		return stop(err)
	case perm.Outcome.Cancelled != nil:
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case perm.Outcome.Selected == nil || perm.Outcome.Selected.OptionId != "allow":
		if err := send(acp.UpdateToolCall(callID, acp.WithUpdateStatus(acp.ToolCallStatusFailed))); err != nil {
			return stop(err)
		}
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}

	for _, s := range snapshots {
		if err := send(acp.UpdateToolCall(callID,
			acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
			acp.WithUpdateContent(output(s)),
		)); err != nil {
			return stop(err)
		}
	}
	if err := send(acp.UpdateToolCall(callID,
		acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateRawOutput(map[string]any{"exit_code": 0}),
	)); err != nil {
		return stop(err)
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// askToRun asks the client for permission to run the command: allow or reject, once.
func askToRun(ctx context.Context, conn *acp.AgentSideConnection, session acp.SessionId) (acp.RequestPermissionResponse, error) {
	return conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: session,
		ToolCall: acp.ToolCallUpdate{
			ToolCallId: callID,
			Title:      acp.Ptr(command),
			Kind:       acp.Ptr(acp.ToolKindExecute),
		},
		Options: []acp.PermissionOption{
			{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
}

// The rest of acp.Agent: this agent has no authentication, no session
// management beyond session/new, no modes and no config options.

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, acp.NewMethodNotFound(acp.AgentMethodAuthenticate)
}

func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}
