package main

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// turn is one prompt turn of the script, in one session.
type turn struct {
	conn    *acp.AgentSideConnection
	session acp.SessionId
}

// run plays the script: announce the command, ask permission, run it.
func (t turn) run(ctx context.Context) (acp.StopReason, error) {
	if err := t.announce(ctx); err != nil {
		return "", err
	}
	allowed, reason, err := t.askPermission(ctx)
	if err != nil || !allowed {
		return reason, err
	}
	return acp.StopReasonEndTurn, t.runCommand(ctx)
}

func (t turn) send(ctx context.Context, u acp.SessionUpdate) error {
	return t.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: t.session, Update: u})
}

func output(text string) []acp.ToolCallContent {
	return []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))}
}

// announce says what the agent does and starts the tool call, pending.
func (t turn) announce(ctx context.Context) error {
	if err := t.send(ctx, acp.UpdateAgentMessageText("Running the tests.")); err != nil {
		return err
	}
	return t.send(ctx, acp.StartToolCall(callID, command,
		acp.WithStartKind(acp.ToolKindExecute),
		acp.WithStartStatus(acp.ToolCallStatusPending),
		acp.WithStartRawInput(map[string]any{"command": []string{"bash", "-lc", command}}),
		acp.WithStartContent(output("$ "+command)),
	))
}

// askPermission asks the client to allow the command. When it does not,
// reason is how the turn ends: cancelled, or end_turn after the call failed.
func (t turn) askPermission(ctx context.Context) (allowed bool, reason acp.StopReason, err error) {
	perm, err := t.conn.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: t.session,
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
	switch {
	case err != nil:
		return false, "", err
	case perm.Outcome.Cancelled != nil:
		return false, acp.StopReasonCancelled, nil
	case perm.Outcome.Selected == nil || perm.Outcome.Selected.OptionId != "allow":
		return false, acp.StopReasonEndTurn, t.send(ctx, acp.UpdateToolCall(callID, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
	}
	return true, "", nil
}

// runCommand streams the command's output snapshots and completes the call.
func (t turn) runCommand(ctx context.Context) error {
	for _, s := range snapshots {
		if err := t.send(ctx, acp.UpdateToolCall(callID,
			acp.WithUpdateStatus(acp.ToolCallStatusInProgress),
			acp.WithUpdateContent(output(s)),
		)); err != nil {
			return err
		}
	}
	return t.send(ctx, acp.UpdateToolCall(callID,
		acp.WithUpdateStatus(acp.ToolCallStatusCompleted),
		acp.WithUpdateRawOutput(map[string]any{"exit_code": 0}),
	))
}
