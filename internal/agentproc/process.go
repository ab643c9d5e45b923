package agentproc

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"
)

// Process is a running agent: the pipes to its stdin and from its stdout,
// and its way out.
//
// Shutdown follows the agent: Wait returns once it has exited and its
// stdout was read to the end. When the client is gone, Stop gives the agent
// its grace to exit, then the SIGTERM step, then after the grace again
// SIGKILL. Cancelling the context given to Start stops the agent the same
// way, from the SIGTERM step on. (Windows has no SIGTERM for a process
// without a console window of its own: there the step ends the agent's job,
// which kills it and every process it started.)
type Process struct {
	proc   *osProcess
	log    *slog.Logger
	grace  time.Duration
	stdin  io.WriteCloser
	stdout *os.File // our own pipe: cmd.Wait must not close it before it is read
	exited chan error

	// stopCtx is cancelled for the SIGTERM step: exec then sends it
	// (cmd.Cancel), and SIGKILLs the agent WaitDelay later.
	stopCtx context.Context
	stopNow context.CancelFunc // the SIGTERM step, now

	mu       sync.Mutex
	shutdown *time.Timer // the grace before the SIGTERM step, once Stop was called
	gone     bool        // the agent has exited: nothing left to stop
}

// Start resolves and starts the agent, logging to log (nil: nowhere). A
// failure to find or start it is a *StartError (one to make its pipes is
// not: that is the proxy's, not the agent's).
func Start(ctx context.Context, a Agent, log *slog.Logger) (*Process, error) {
	path, err := a.Resolve()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Process{log: log, grace: a.grace(), exited: make(chan error, 1)}
	p.stopCtx, p.stopNow = context.WithCancel(ctx)
	stdoutW, err := p.prepare(a, path)
	if err != nil {
		p.stopNow()
		return nil, err
	}
	err = p.proc.startAndWait(p.exited)
	stdoutW.Close() // the agent has its own copy now
	if err != nil {
		p.stdout.Close()
		p.stopNow()
		return nil, startError(a.Argv[0], err)
	}
	log.Info("agent started", "argv", a.Argv, "pid", p.proc.pid())
	return p, nil
}

// prepare makes the agent's command and its pipes, and returns the write
// end of its stdout, which the agent inherits.
func (p *Process) prepare(a Agent, path string) (*os.File, error) {
	cmd, err := a.command(p.stopCtx, path)
	if err != nil {
		return nil, err
	}
	p.proc = newOSProcess(cmd, p.log, p.grace)
	cmd.Cancel = func() error {
		p.log.Info("stopping agent", "step", p.proc.terminateName(), "then", "SIGKILL after grace", "grace", p.grace)
		return p.proc.terminate()
	}
	cmd.WaitDelay = p.proc.waitDelay()
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("agent stdin: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		p.stdin.Close()
		return nil, fmt.Errorf("agent stdout: %w", err)
	}
	p.stdout, cmd.Stdout = r, w
	return w, nil
}

// Stdin is the agent's stdin; closing it is how the agent learns that the
// client is gone.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is what the agent writes. Read it to the end, then tell Wait.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Stop begins stopping the agent because the client is gone (why says how):
// the grace for the agent to exit by itself, then the SIGTERM step. Once the
// agent has exited, or after the first call, Stop does nothing. It may be
// called from any goroutine.
func (p *Process) Stop(why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shutdown != nil || p.gone {
		return
	}
	p.log.Info("client gone; stopping agent", "why", why, "grace", p.grace)
	p.shutdown = time.AfterFunc(p.grace, p.stopNow)
}

// Wait forwards sigs to the agent (see osProcess.forward) until the agent
// has exited and read is closed, which the reader of Stdout does once it
// has read it to the end. It returns the agent's exit status as a shell
// reports it: its code, or 128+N if it died of signal N.
//
// Whatever the agent wrote before exiting is in the pipe, so its reader
// gets it all; but a grandchild that holds the pipe open gets only a grace
// (with NoGrace, still DefaultGrace) before the pipe is closed under it.
// What the agent left running is stopped before Wait returns (on Unix by
// the reaper, see reaper.serve; on Windows by osProcess.endGroup): nothing
// the agent started outlives the session.
func (p *Process) Wait(sigs <-chan os.Signal, read <-chan struct{}) int {
	defer p.proc.release()
	exited := p.exited
	var exitErr error
	var drainWait <-chan time.Time
	var groupEnded chan struct{}
	for exited != nil || read != nil || groupEnded != nil {
		select {
		case s := <-sigs:
			p.proc.forward(p.log, s)
		case <-read:
			read = nil
		case exitErr = <-exited:
			exited = nil
			p.exit()
			drainWait = time.After(cmp.Or(p.grace, DefaultGrace))
			groupEnded = make(chan struct{})
			go func(done chan struct{}) {
				defer close(done)
				p.proc.endGroup(p.grace)
			}(groupEnded)
		case <-groupEnded:
			groupEnded = nil
		case <-drainWait:
			drainWait = nil
			p.log.Warn("agent exited but its stdout stayed open; closing it")
			p.stdout.Close()
		}
	}
	p.stdout.Close()
	status := p.proc.exitStatus()
	if p.stopCtx.Err() != nil {
		p.log.Info("agent stopped", "status", status, "err", exitErr)
	}
	p.stopNow()
	return status
}

// exit notes that the agent has exited, so there is nothing left to stop.
func (p *Process) exit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = true
	if p.shutdown != nil {
		p.shutdown.Stop()
	}
}

// exitCode is the agent's status as a shell reports it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		return shellStatus(ws)
	}
	return ps.ExitCode()
}

// shellStatus is a wait status as a shell reports it: the exit code, or
// 128+N for death by signal N.
func shellStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
