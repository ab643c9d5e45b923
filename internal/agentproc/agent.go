package agentproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"time"
)

// DefaultGrace is how long the agent gets to exit after its stdin closes,
// and again after SIGTERM, before the next step. Some agents (codex-acp)
// ignore EOF on stdin, so the steps are needed; editors expect a prompt exit.
const DefaultGrace = time.Second

// NoGrace as Agent.Grace is none: SIGTERM as soon as the client is gone,
// SIGKILL right after it (--grace 0).
const NoGrace time.Duration = -1

// Agent is how to start the agent process.
type Agent struct {
	Argv   []string
	Env    []string      // nil: inherit the proxy's environment
	Dir    string        // "": the proxy's working directory
	Stderr io.Writer     // the agent's stderr; an *os.File is passed as is
	Grace  time.Duration // 0: DefaultGrace; NoGrace: none
}

// StartError is an agent that could not be started. Code is the shell's
// convention: 127 not found, 126 found but not executable.
type StartError struct {
	Code int
	Err  error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// startError is a failed start of the agent named name.
func startError(name string, err error) *StartError {
	code := 126
	if errors.Is(err, fs.ErrNotExist) {
		code = 127
	}
	return &StartError{Code: code, Err: fmt.Errorf("%s: %w", name, err)}
}

// grace is a.Grace with its zero and NoGrace resolved.
func (a Agent) grace() time.Duration {
	switch {
	case a.Grace == 0:
		return DefaultGrace
	case a.Grace < 0:
		return 0
	}
	return a.Grace
}

// command is the agent's exec.Cmd for the executable at path, bound to ctx.
func (a Agent) command(ctx context.Context, path string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, path, a.Argv[1:]...)
	cmd.Args[0] = a.Argv[0]
	cmd.Env, cmd.Dir, cmd.Stderr = a.Env, a.Dir, a.Stderr
	if err := adaptCommand(cmd); err != nil {
		return nil, &StartError{Code: 126, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
	}
	return cmd, nil
}
