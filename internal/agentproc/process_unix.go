//go:build unix

package agentproc

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// osProcess is the agent's process as this platform manages it: the
// leader of a process group of its own, started by a reaper process (see
// reaperName) that stops all the agent started once the session ends.
// cmd is the reaper's. An npm agent is a node launcher whose child is the
// real agent (codex-acp's native binary); signalling the launcher alone
// would leave that child running, so a forwarded signal reaches the group.
type osProcess struct {
	cmd     *exec.Cmd
	log     *slog.Logger
	grace   time.Duration
	agent   int           // the agent's process id, which is also its group's
	control *os.File      // the proxy's end of the reaper's control pipe
	reports *os.File      // and of its report pipe
	report  *bufio.Reader // reading reports
	status  int           // the agent's status, as the reaper reported it; -1 before
}

func newOSProcess(cmd *exec.Cmd, log *slog.Logger, grace time.Duration) *osProcess {
	return &osProcess{cmd: cmd, log: log, grace: grace, status: -1}
}

// adaptCommand has nothing to adapt on Unix: the kernel runs scripts.
func adaptCommand(*exec.Cmd) error { return nil }

// waitDelay is how long after the SIGTERM step exec kills the reaper: only
// if the reaper failed to end the tree itself, which takes a grace and a
// moment.
func (p *osProcess) waitDelay() time.Duration { return p.grace + reaperGiveUp + time.Second }

// startAndWait starts the reaper, which starts the agent, and then waits
// for the reaper on a goroutine of its own, sending Wait's result on
// exited. The reaper leads a process group of its own, so that an editor
// that kills the proxy's group kills not the reaper with it.
func (p *osProcess) startAndWait(exited chan<- error) error {
	exe, err := reaperExecutable()
	if err != nil {
		return err
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("reaper: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return fmt.Errorf("reaper: %w", err)
	}
	p.cmd.Args = append([]string{reaperName, p.grace.String(), p.cmd.Path}, p.cmd.Args...)
	p.cmd.Path = exe
	p.cmd.ExtraFiles = []*os.File{ctlR, repW} // reaperControlFD, reaperReportFD
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Set before Start: from Start on, exec's Cancel (terminate, on its
	// own goroutine) may write to the control pipe.
	p.control, p.reports, p.report = ctlW, repR, bufio.NewReader(repR)
	err = p.cmd.Start()
	ctlR.Close()
	repW.Close()
	if err != nil {
		ctlW.Close()
		repR.Close()
		return fmt.Errorf("reaper: %w", err)
	}
	if p.agent, err = p.started(); err != nil {
		p.release()
		_ = p.cmd.Wait()
		return err
	}
	go func() {
		p.status = p.exitReport()
		exited <- p.cmd.Wait()
	}()
	return nil
}

// reaperExecutable is the proxy's own binary. On Linux /proc/self/exe is
// that binary even when its file has been replaced or removed since.
func reaperExecutable() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("reaper: %w", err)
	}
	return exe, nil
}

// started reads the reaper's first report: the agent's process id, or
// why it could not be started.
func (p *osProcess) started() (int, error) {
	word, n, err := p.readReport()
	switch {
	case err != nil:
		return 0, err
	case word == "started":
		return n, nil
	case word == "error":
		return 0, fmt.Errorf("fork/exec %s: %w", p.cmd.Args[2], syscall.Errno(n))
	}
	return 0, fmt.Errorf("reaper: unexpected report %q", word)
}

// exitReport reads the reaper's last report, the agent's status; -1 if the
// reaper died without one.
func (p *osProcess) exitReport() int {
	word, n, err := p.readReport()
	if err != nil || word != "exit" {
		return -1
	}
	return n
}

// readReport reads one report: a word and a number.
func (p *osProcess) readReport() (string, int, error) {
	line, err := p.report.ReadString('\n')
	if err != nil {
		return "", 0, fmt.Errorf("reaper: no report: %w", err)
	}
	word, num, _ := strings.Cut(strings.TrimSpace(line), " ")
	n, err := strconv.Atoi(num)
	if err != nil {
		return "", 0, fmt.Errorf("reaper: report %q: %w", line, err)
	}
	return word, n, nil
}

func (p *osProcess) pid() int { return p.agent }

func (p *osProcess) terminateName() string { return "SIGTERM" }

// terminate is the polite step of a shutdown, for the agent and everything
// it started, as a service manager stops a service: the reaper sends
// SIGTERM to them all, and SIGKILL a grace later.
func (p *osProcess) terminate() error {
	if _, err := p.control.WriteString("term\n"); err != nil && !errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("reaper: %w", err)
	}
	return nil
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
	if err := signalGroup(p.agent, sig); err != nil {
		log.Warn("forwarding signal failed", "signal", s, "err", err)
	}
}

// endGroup has nothing left to do: the reaper exits only once what the
// agent left running has ended (see reaper.serve).
func (p *osProcess) endGroup(time.Duration) {}

// exitStatus is the agent's status as a shell reports it.
func (p *osProcess) exitStatus() int {
	if p.status >= 0 {
		return p.status
	}
	p.log.Warn("the reaper ended without the agent's status", "reaper", exitCode(p.cmd.ProcessState))
	return exitCode(p.cmd.ProcessState)
}

// release closes the proxy's ends of the reaper's pipes.
func (p *osProcess) release() {
	p.control.Close()
	p.reports.Close()
}

// signalGroup sends sig to the process group pgid. A group that is gone is
// not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
