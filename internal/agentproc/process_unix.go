//go:build unix

package agentproc

import (
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// osProcess is the agent's process as this platform manages it.
type osProcess struct {
	cmd *exec.Cmd
	log *slog.Logger
}

func newOSProcess(cmd *exec.Cmd, log *slog.Logger) *osProcess {
	return &osProcess{cmd: cmd, log: log}
}

// adaptCommand has nothing to adapt on Unix: the kernel runs scripts.
func adaptCommand(*exec.Cmd) error { return nil }

// startAndWait starts the agent and then waits for it on a goroutine of its
// own, sending Wait's result on exited. The agent is killed if the proxy
// dies without stopping it (SIGKILL from an editor): an agent that ignores
// EOF, as codex-acp does, would otherwise run forever. Linux and FreeBSD
// have a parent-death signal for that; on Linux it belongs to the thread
// that started the child, so the goroutine keeps its thread locked until
// the agent is gone. Elsewhere (macOS) a watchdog process does it.
func (p *osProcess) startAndWait(exited chan<- error) error {
	setDeathSignal(p.cmd)
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the agent
		if err := p.cmd.Start(); err != nil {
			started <- err
			return
		}
		var wd *watchdog
		if !hasDeathSignal {
			var err error
			if wd, err = startWatchdog(p.cmd.Process.Pid); err != nil {
				p.log.Warn("the agent will outlive a killed proxy", "err", err)
			}
		}
		started <- nil
		err := p.cmd.Wait()
		if wd != nil {
			wd.disarm()
		}
		exited <- err
	}()
	return <-started
}

func (p *osProcess) terminateName() string { return "SIGTERM" }

// terminate is the polite step of a shutdown.
func (p *osProcess) terminate() error { return p.cmd.Process.Signal(syscall.SIGTERM) }

// forward passes a signal the proxy received on to the agent.
func (p *osProcess) forward(log *slog.Logger, s os.Signal) {
	if s == syscall.SIGPIPE {
		return // our stdout is gone; the write error handles it
	}
	log.Info("forwarding signal", "signal", s)
	_ = p.cmd.Process.Signal(s)
}

// release has nothing to free on Unix.
func (p *osProcess) release() {}
