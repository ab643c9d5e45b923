package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/acp-proxy/acp-proxy/filters"
)

// DefaultGrace is how long the agent gets to exit after its stdin closes,
// and again after SIGTERM, before the next step. Some agents (codex-acp)
// ignore EOF on stdin, so the steps are needed; editors expect a prompt exit.
const DefaultGrace = time.Second

// Agent is how to start the agent process.
type Agent struct {
	Argv   []string
	Env    []string      // nil: inherit the proxy's environment
	Dir    string        // "": the proxy's working directory
	Stderr io.Writer     // the agent's stderr; an *os.File is passed as is
	Grace  time.Duration // 0: DefaultGrace
}

// StartError is an agent that could not be started. Code is the shell's
// convention: 127 not found, 126 found but not executable.
type StartError struct {
	Code int
	Err  error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Resolve finds the agent's executable, as a shell would.
func (a Agent) Resolve() (string, error) {
	if len(a.Argv) == 0 {
		return "", &StartError{Code: 2, Err: errors.New("no agent command")}
	}
	path, err := exec.LookPath(a.Argv[0])
	switch {
	case err == nil:
		return path, nil
	case errors.Is(err, fs.ErrPermission):
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: permission denied", a.Argv[0])}
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return "", &StartError{Code: 127, Err: fmt.Errorf("%s: command not found", a.Argv[0])}
	default:
		return "", &StartError{Code: 126, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
	}
}

// Run starts the agent, relays between the editor's stdin/stdout and it,
// and returns the agent's exit status: its code, or 128+N if it died of
// signal N. Signals received on sigs are forwarded to the agent.
//
// Shutdown follows the agent: when its stdout ends, everything it wrote
// has been delivered and Run waits for it to exit. When the editor closes
// stdin (or stops reading), the agent's stdin is closed, then the agent
// gets Grace to exit, then SIGTERM, then after Grace again SIGKILL.
func (r *Relay) Run(ctx context.Context, a Agent, stdin io.Reader, stdout io.Writer, sigs <-chan os.Signal) (int, error) {
	path, err := a.Resolve()
	if err != nil {
		return 0, err
	}
	grace := a.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	cmd := exec.Command(path, a.Argv[1:]...)
	cmd.Args[0] = a.Argv[0]
	cmd.Env, cmd.Dir, cmd.Stderr = a.Env, a.Dir, a.Stderr
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
	if err := startAndWait(cmd, exited); err != nil {
		agentOut.Close()
		agentOutW.Close()
		code := 126
		if errors.Is(err, fs.ErrNotExist) {
			code = 127
		}
		return 0, &StartError{Code: code, Err: fmt.Errorf("%s: %w", a.Argv[0], err)}
	}
	agentOutW.Close()
	r.log().Info("agent started", "argv", a.Argv, "pid", cmd.Process.Pid)

	conn := r.Open(agentIn, stdout)
	editorDone := make(chan error, 1)
	go func() { editorDone <- pumpEditorToAgent(ctx, conn, stdin) }()
	agentDone := make(chan error, 1)
	go func() { agentDone <- pumpAgentToEditor(ctx, conn, agentOut) }()

	var (
		shutdown  <-chan time.Time // next escalation step, once the editor is gone
		step      int
		exitErr   error
		hasExited bool
		outDone   bool
		drainWait <-chan time.Time
	)
	beginShutdown := func(why string) {
		if shutdown == nil && !hasExited {
			r.log().Info("editor gone; stopping agent", "why", why, "grace", grace)
			shutdown = time.After(grace)
		}
	}
	for !(hasExited && outDone) {
		select {
		case s := <-sigs:
			if s == syscall.SIGPIPE {
				continue // our stdout is gone; the write error handles it
			}
			r.log().Info("forwarding signal", "signal", s)
			_ = cmd.Process.Signal(s)
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
			if cerr := conn.CloseWriter(filters.AgentToClient); cerr != nil && err == nil {
				r.log().Debug("closing stdout", "err", cerr)
			}
		case exitErr = <-exited:
			exited, hasExited, shutdown = nil, true, nil
			// Whatever the agent wrote is in the pipe; read it to the end.
			// A grandchild holding the pipe open gets a grace period.
			drainWait = time.After(grace)
		case <-drainWait:
			drainWait = nil
			r.log().Warn("agent exited but its stdout stayed open; closing it")
			agentOut.Close()
		case <-shutdown:
			step++
			switch step {
			case 1:
				r.log().Info("agent still running; SIGTERM")
				_ = cmd.Process.Signal(syscall.SIGTERM)
				shutdown = time.After(grace)
			default:
				r.log().Warn("agent ignored SIGTERM; SIGKILL")
				_ = cmd.Process.Kill()
				shutdown = nil
			}
		}
	}
	agentOut.Close()
	return exitCode(cmd.ProcessState, exitErr), nil
}

// startAndWait starts cmd and then waits for it on a goroutine of its own,
// sending Wait's result on exited. Where the system can (Linux), the agent
// is killed if the proxy dies without stopping it (SIGKILL from an editor):
// an agent that ignores EOF, as codex-acp does, would otherwise run forever.
// That death signal belongs to the thread that started the child, so the
// goroutine keeps its thread locked until the agent is gone.
func startAndWait(cmd *exec.Cmd, exited chan<- error) error {
	setDeathSignal(cmd)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the agent
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- cmd.Wait()
	}()
	return <-started
}

func pumpEditorToAgent(ctx context.Context, c *Conn, stdin io.Reader) error {
	err := c.Pump(ctx, filters.ClientToAgent, stdin)
	if cerr := c.CloseWriter(filters.ClientToAgent); err == nil && cerr != nil && !errors.Is(cerr, os.ErrClosed) {
		err = fmt.Errorf("closing agent stdin: %w", cerr)
	}
	return err
}

func pumpAgentToEditor(ctx context.Context, c *Conn, agentOut io.Reader) error {
	return c.Pump(ctx, filters.AgentToClient, agentOut)
}

// exitCode is the agent's status as a shell reports it.
func exitCode(ps *os.ProcessState, waitErr error) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
