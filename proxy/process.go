package proxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// DefaultGrace is how long the agent gets to exit after its stdin closes,
// and again after SIGTERM, before the next step. Some agents (codex-acp)
// ignore EOF on stdin, so the steps are needed; editors expect a prompt exit.
const DefaultGrace = time.Second

// NoGrace as Agent.Grace is none: SIGTERM as soon as the editor is gone,
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

// Resolve finds the agent's executable, as a shell would.
func (a Agent) Resolve() (string, error) {
	if len(a.Argv) == 0 {
		return "", &StartError{Code: 2, Err: errors.New("no agent command")}
	}
	path, err := lookPathOutsideDot(a.Argv[0])
	switch {
	case err == nil:
		return path, nil
	case errors.Is(err, exec.ErrDot):
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: found only in the current directory; name it with a path (.%c%s) to run it", a.Argv[0], os.PathSeparator, a.Argv[0])}
	case errors.Is(err, fs.ErrPermission):
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: permission denied", a.Argv[0])}
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return "", &StartError{Code: 127, Err: fmt.Errorf("%s: command not found", a.Argv[0])}
	default:
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
	}
}

// lookPathOutsideDot is exec.LookPath for a command name, except that the
// current directory is never searched implicitly.
//
// exec.LookPath searches as the system's shell does: PATH in order, and on
// Windows as cmd.exe does, the current directory first, then PATH, each
// directory with every PATHEXT extension in order (npx → npx.cmd). A file
// found through the current directory (on Windows, or through "." or
// another relative entry in PATH) it reports as exec.ErrDot instead of
// running it. So does the proxy: an editor starts agents in the user's
// project, and a file there must not choose the agent. But where PATH's
// absolute directories have the command too, that one is run, as with
// NoDefaultCurrentDirectoryInExePath on Windows.
func lookPathOutsideDot(name string) (string, error) {
	path, err := exec.LookPath(name)
	if !errors.Is(err, exec.ErrDot) || strings.ContainsAny(name, `/\:`) {
		return path, err
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		// Given a directory, LookPath tries the PATHEXT extensions on
		// Windows but searches nowhere else.
		if p, derr := exec.LookPath(filepath.Join(dir, name)); derr == nil {
			return p, nil
		}
	}
	return "", err
}

// Run starts the agent, relays between the editor's stdin/stdout and it,
// and returns the agent's exit status: its code, or 128+N if it died of
// signal N. Signals received on sigs are forwarded to the agent (on
// Windows they are not: the agent shares the proxy's console and receives
// Ctrl-C and Ctrl-Break itself).
//
// Shutdown follows the agent: when its stdout ends, everything it wrote
// has been delivered and Run waits for it to exit. When the editor closes
// stdin (or stops reading), the agent's stdin is closed, then the agent
// gets Grace to exit, then SIGTERM, then after Grace again SIGKILL.
// Cancelling ctx stops the agent the same way, from the SIGTERM step on;
// Run still delivers what the agent wrote until then and returns its
// status. (Windows has no SIGTERM for a process without a console window
// of its own: there the step ends the agent's job, which kills it and
// every process it started.)
func (r *Relay) Run(ctx context.Context, a Agent, stdin io.Reader, stdout io.Writer, sigs <-chan os.Signal) (int, error) {
	path, err := a.Resolve()
	if err != nil {
		return 0, err
	}
	grace := a.grace()
	// stop is the SIGTERM step: cancelling stopCtx makes exec send it
	// (cmd.Cancel), and exec SIGKILLs the agent WaitDelay later.
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd, err := a.command(stopCtx, path)
	if err != nil {
		return 0, err
	}
	p := newAgentProcess(cmd, r.log())
	cmd.Cancel = func() error {
		r.log().Info("stopping agent", "step", p.stopName(), "then", "SIGKILL after grace", "grace", grace)
		return p.stop()
	}
	cmd.WaitDelay = max(grace, time.Nanosecond) // 0 would be: never SIGKILL
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		return 0, fmt.Errorf("agent stdin: %w", err)
	}
	// Our own pipe for stdout: cmd.Wait would otherwise close it, and we
	// must read it to the end before deciding the agent is gone.
	agentOut, agentOutW, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("agent stdout: %w", err)
	}
	cmd.Stdout = agentOutW
	exited := make(chan error, 1)
	if err := p.startAndWait(exited); err != nil {
		agentOut.Close()
		agentOutW.Close()
		return 0, startError(a.Argv[0], err)
	}
	defer p.release()
	agentOutW.Close()
	r.log().Info("agent started", "argv", a.Argv, "pid", cmd.Process.Pid)

	conn := r.Open(agentIn, stdout)
	editorDone := make(chan error, 1)
	go func() { editorDone <- pumpEditorToAgent(ctx, conn, stdin) }()
	agentDone := make(chan error, 1)
	go func() { agentDone <- pumpAgentToEditor(ctx, conn, agentOut) }()

	var (
		shutdown  *time.Timer // the grace before the SIGTERM step, once the editor is gone
		exitErr   error
		hasExited bool
		outDone   bool
		drainWait <-chan time.Time
	)
	beginShutdown := func(why string) {
		if shutdown == nil && !hasExited {
			r.log().Info("editor gone; stopping agent", "why", why, "grace", grace)
			shutdown = time.AfterFunc(grace, stop)
		}
	}
	for !(hasExited && outDone) {
		select {
		case s := <-sigs:
			p.forward(r.log(), s)
		case err := <-editorDone:
			editorDone = nil
			if err != nil {
				r.log().Warn("editor→agent pump ended", "err", err)
			}
			beginShutdown("stdin closed")
		case err := <-agentDone:
			agentDone, outDone = nil, true
			if err != nil {
				r.log().Warn("agent→editor pump ended", "err", err)
				beginShutdown("stdout write failed")
			}
			if cerr := conn.CloseWriter(acp.AgentToClient); cerr != nil && err == nil {
				r.log().Debug("closing stdout", "err", cerr)
			}
		case exitErr = <-exited:
			exited, hasExited = nil, true
			if shutdown != nil {
				shutdown.Stop()
			}
			// Whatever the agent wrote is in the pipe; read it to the end.
			// A grandchild holding the pipe open gets a grace period;
			// with none, still DefaultGrace: what is in the pipe is read.
			drainWait = time.After(cmp.Or(grace, DefaultGrace))
		case <-drainWait:
			drainWait = nil
			r.log().Warn("agent exited but its stdout stayed open; closing it")
			agentOut.Close()
		}
	}
	agentOut.Close()
	status := exitCode(cmd.ProcessState)
	if stopCtx.Err() != nil {
		r.log().Info("agent stopped", "status", status, "err", exitErr)
	}
	return status, nil
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

// command is the agent's exec.Cmd, bound to ctx.
func (a Agent) command(ctx context.Context, path string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, path, a.Argv[1:]...)
	cmd.Args[0] = a.Argv[0]
	cmd.Env, cmd.Dir, cmd.Stderr = a.Env, a.Dir, a.Stderr
	if err := adaptCommand(cmd); err != nil {
		return nil, &StartError{Code: 126, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
	}
	return cmd, nil
}

func pumpEditorToAgent(ctx context.Context, c *Conn, stdin io.Reader) error {
	err := c.Pump(ctx, acp.ClientToAgent, stdin)
	if cerr := c.CloseWriter(acp.ClientToAgent); err == nil && cerr != nil && !errors.Is(cerr, os.ErrClosed) {
		err = fmt.Errorf("closing agent stdin: %w", cerr)
	}
	return err
}

func pumpAgentToEditor(ctx context.Context, c *Conn, agentOut io.Reader) error {
	return c.Pump(ctx, acp.AgentToClient, agentOut)
}

// exitCode is the agent's status as a shell reports it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
