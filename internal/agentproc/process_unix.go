//go:build unix

package agentproc

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/agentproc/proctree"
)

// osProcess is the agent's process as this platform manages it: the leader
// of a process group of its own, which holds whatever the agent starts. An
// npm agent is a node launcher whose child is the real agent (codex-acp's
// native binary); signalling the launcher alone would leave that child
// running after the session, so every step signals the group.
type osProcess struct {
	cmd *exec.Cmd
	log *slog.Logger
	wd  *watchdog

	mu         sync.Mutex
	terminated time.Time // when the SIGTERM step was sent; zero before
}

func newOSProcess(cmd *exec.Cmd, log *slog.Logger) *osProcess {
	return &osProcess{cmd: cmd, log: log}
}

// adaptCommand has nothing to adapt on Unix: the kernel runs scripts.
func adaptCommand(*exec.Cmd) error { return nil }

// startAndWait starts the agent in a new process group and then waits for
// it on a goroutine of its own, sending Wait's result on exited.
//
// The agent's tree is ended if the proxy dies without stopping it (SIGKILL
// from an editor): an agent that ignores EOF, as codex-acp does, would
// otherwise run forever. Linux and FreeBSD have a parent-death signal for
// the agent itself; on Linux it belongs to the thread that started the
// child, so the goroutine keeps its thread locked until the agent is gone.
// The signal reaches the agent only, not its children, so a watchdog
// process kills the whole group as well, on every Unix.
func (p *osProcess) startAndWait(exited chan<- error) error {
	setDeathSignal(p.cmd)
	if p.cmd.SysProcAttr == nil {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	p.cmd.SysProcAttr.Setpgid = true
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the agent
		if err := p.cmd.Start(); err != nil {
			started <- err
			return
		}
		wd, err := startWatchdog(p.cmd.Process.Pid)
		if err != nil {
			p.log.Warn("what the agent starts will outlive a killed proxy", "err", err)
		}
		p.wd = wd
		started <- nil
		exited <- p.cmd.Wait()
	}()
	return <-started
}

func (p *osProcess) terminateName() string { return "SIGTERM" }

// terminate is the polite step of a shutdown, for the agent and everything
// it started, as a service manager stops a service.
func (p *osProcess) terminate() error {
	p.mu.Lock()
	if p.terminated.IsZero() {
		p.terminated = time.Now()
	}
	p.mu.Unlock()
	return signalGroup(p.cmd.Process.Pid, syscall.SIGTERM)
}

// forward passes a signal the proxy received on to the agent's group. Run
// directly from a terminal, the agent and its children are in the
// terminal's foreground group and all get Ctrl-C; in a group of its own
// only the proxy does, so it passes the signal to all of them. (The proxy
// cannot tell a signal sent to its group from one sent to it alone.)
func (p *osProcess) forward(log *slog.Logger, s os.Signal) {
	sig, ok := s.(syscall.Signal)
	if !ok || sig == syscall.SIGPIPE {
		return // SIGPIPE: our stdout is gone; the write error handles it
	}
	log.Info("forwarding signal", "signal", s)
	if err := signalGroup(p.cmd.Process.Pid, sig); err != nil {
		log.Warn("forwarding signal failed", "signal", s, "err", err)
	}
}

// endGroup stops what the agent left running in its group once it has
// exited: none of it is anyone's now, and a launcher's child would run on.
// It gets SIGTERM, then SIGKILL a grace later (a grace after the SIGTERM
// step, if the shutdown already took it), as systemd stops what is left of
// a service. It returns once the group is gone, or a moment after SIGKILL.
func (p *osProcess) endGroup(grace time.Duration) {
	pgid := p.cmd.Process.Pid
	if !groupAlive(pgid) {
		return
	}
	p.mu.Lock()
	termAt := p.terminated
	p.mu.Unlock()
	if termAt.IsZero() {
		p.log.Info("the agent exited; stopping what it left running", "step", "SIGTERM", "then", "SIGKILL after grace", "grace", grace)
		termAt = time.Now()
		_ = signalGroup(pgid, syscall.SIGTERM)
	}
	if waitGroupGone(pgid, time.Until(termAt.Add(grace))) {
		return
	}
	p.log.Info("stopping what the agent left running", "step", "SIGKILL")
	_ = signalGroup(pgid, syscall.SIGKILL)
	// SIGKILL cannot be refused; only its delivery takes a moment.
	if !waitGroupGone(pgid, time.Second) {
		p.log.Warn("processes of the agent's group outlived SIGKILL", "pgid", pgid)
	}
}

// release disarms the watchdog: the agent has been waited for and its group
// ended, so its group id may be reused.
func (p *osProcess) release() {
	if p.wd != nil {
		p.wd.disarm()
		p.wd = nil
	}
}

// signalGroup sends sig to the process group pgid. A group that is gone is
// not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// groupAlive reports whether process group pgid still has a live process.
// kill(2) counts zombies too, which a container's init may never reap, so
// where the processes can be listed a group of zombies is gone.
func groupAlive(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return false
	}
	procs, err := proctree.List()
	return err != nil || len(proctree.InGroup(procs, pgid)) > 0
}

// waitGroupGone waits at most d for group pgid to be gone, and reports
// whether it is.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
