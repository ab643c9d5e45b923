//go:build unix

package agentproc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acp-proxy/acp-proxy/internal/agentproc/proctree"
)

// The reaper is the agent's parent: the proxy's own binary started again
// (see init) between the proxy and the agent, so that nothing the agent
// starts outlives the session, however the session ends.
//
// Signals to the agent's process group do not reach all it starts: codex
// runs each command in a session of its own (setsid), so its shells and
// what they leave running are in no group of the agent's, and they are
// reparented to init once their parent exits. On Linux the reaper is a
// child subreaper (prctl PR_SET_CHILD_SUBREAPER): such orphans become its
// children instead of init's, so every process the agent ever started is a
// descendant of the reaper until it is gone, and the reaper finds them all
// in /proc. It must be a process of its own, not the proxy: an editor can
// SIGKILL the proxy, and what is left must still be found and stopped. The
// proxy holds the only write end of the reaper's control pipe, so the
// kernel tells the reaper when the proxy dies, however it dies.
//
// A cgroup would hold the tree as well, but an editor's process can rarely
// make one (only in a cgroup delegated to its user), and a watchdog beside
// the proxy would see the agent's orphans only by polling. Elsewhere
// (macOS, the BSDs) there is no subreaper: the reaper finds what still
// descends from it, and the agent's process group; an orphan whose parent
// exited before the session ended is not found.
//
// The reaper's argv is reaperName, the agent's grace, the agent's path and
// its argv. Its stdin, stdout and stderr are the agent's. Fd 3 carries the
// proxy's commands: "term" (the SIGTERM step, then SIGKILL a grace later);
// EOF means the proxy is gone (the agent gets its grace, then the steps).
// Fd 4 carries its reports: "started PID" or "error ERRNO", then "exit
// STATUS", the agent's status as a shell reports it, once the agent and
// everything it started have ended.
const reaperName = "acp-proxy-reaper"

const (
	reaperControlFD = 3
	reaperReportFD  = 4
)

// reaperGiveUp is how long the reaper keeps killing a tree that will not
// die (a process stuck in the kernel) before it reports and exits.
const reaperGiveUp = 5 * time.Second

func init() {
	if len(os.Args) > 2 && os.Args[0] == reaperName {
		os.Exit(runReaper(os.Args[1:]))
	}
}

// reaper is the agent's parent, running as its own process.
type reaper struct {
	agent int // the agent's process id, which is also its group's
	grace time.Duration
	// subreaper: the reaper is a child subreaper, so once it has no child,
	// nothing the agent started is left (childless is closed then).
	subreaper bool
	childless chan struct{}
}

// runReaper is the reaper's main: args are the grace, the agent's path and
// its argv.
func runReaper(args []string) int {
	// init runs on the main thread, which lives as long as the process:
	// the agent's parent-death signal is tied to the thread that starts it.
	runtime.LockOSThread()
	syscall.CloseOnExec(reaperControlFD)
	syscall.CloseOnExec(reaperReportFD)
	report := os.NewFile(reaperReportFD, "report")
	// The signals a terminal or an editor sends the proxy's group are not
	// for the reaper; they leave the agent its default handling on exec.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	grace, err := time.ParseDuration(args[0])
	if err != nil {
		fmt.Fprintf(report, "error %d\n", syscall.EINVAL)
		return 1
	}
	r := &reaper{grace: grace, subreaper: becomeSubreaper(), childless: make(chan struct{})}
	r.agent, err = syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: agentSysProcAttr(),
	})
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		fmt.Fprintf(report, "error %d\n", errno)
		return 1
	}
	fmt.Fprintf(report, "started %d\n", r.agent)
	// The agent's stdin and stdout are the agent's alone: it sees EOF when
	// the proxy closes its stdin, and the proxy when the agent's tree
	// closes its stdout.
	if null, err := os.Open(os.DevNull); err == nil {
		_ = unix.Dup2(int(null.Fd()), 0)
		_ = unix.Dup2(int(null.Fd()), 1)
		null.Close()
	}
	status := r.serve(readControl(os.NewFile(reaperControlFD, "control")))
	fmt.Fprintf(report, "exit %d\n", status)
	return 0
}

// readControl delivers the proxy's commands, one a line, and is closed
// when the proxy's end of the pipe closes.
func readControl(f *os.File) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines <- strings.TrimSpace(sc.Text())
		}
	}()
	return lines
}

// serve sees the agent out, stopping its tree as the proxy commands, and
// returns its status once it and everything it started have ended: what the
// agent leaves running when it exits gets SIGTERM, then SIGKILL a grace
// later (a grace after the SIGTERM step, if the shutdown already took it),
// as a service manager stops what is left of a service.
func (r *reaper) serve(control <-chan string) int {
	exited := make(chan int, 1)
	go r.reap(exited)
	var proxyGone, killAt <-chan time.Time
	terminate := func() {
		if killAt == nil {
			r.signalTree(syscall.SIGTERM)
			killAt = time.After(r.grace)
		}
	}
	status := -1
	killed := false
	for status < 0 {
		select {
		case cmd, ok := <-control:
			if !ok {
				control, proxyGone = nil, time.After(r.grace)
			} else if cmd == "term" {
				terminate()
			}
		case <-proxyGone:
			terminate()
		case <-killAt:
			r.killTree()
			killed = true
		case status = <-exited:
		}
	}
	if killed {
		r.killTree() // a tree that is gone takes one look
		return status
	}
	for !r.treeGone() {
		terminate()
		select {
		case <-killAt:
			r.killTree()
			return status
		case <-r.childless:
		case <-time.After(10 * time.Millisecond):
		}
	}
	return status
}

// reap waits for every child of the reaper, the agent and the orphans it
// inherits alike, and sends the agent's status on exited. Once the reaper
// has no child left it closes childless and returns.
func (r *reaper) reap(exited chan<- int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil: // ECHILD: no child left
			close(r.childless)
			return
		case pid == r.agent && reapNow():
			// Nothing left, as is usual: say so with the status, so that
			// serve need not look for a tree that is gone.
			close(r.childless)
			exited <- shellStatus(ws)
			return
		case pid == r.agent:
			exited <- shellStatus(ws)
		}
	}
}

// reapNow reaps the children that have exited already, and reports
// whether none is left.
func reapNow() bool {
	for {
		pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.ECHILD):
			return true
		case err != nil || pid == 0:
			return false
		}
	}
}

// tree is every live process the agent started (and the agent): the
// reaper's descendants, and the agent's process group. ok is false where
// processes cannot be listed; then only the group can be signalled.
func (r *reaper) tree() (procs []proctree.Proc, ok bool) {
	all, err := proctree.List()
	if err != nil {
		return nil, false
	}
	for _, p := range proctree.Descendants(all, os.Getpid()) {
		if p.Live() {
			procs = append(procs, p)
		}
	}
	for _, p := range proctree.InGroup(all, r.agent) {
		if !slices.ContainsFunc(procs, func(q proctree.Proc) bool { return q.PID == p.PID }) {
			procs = append(procs, p)
		}
	}
	return procs, true
}

// signalTree sends sig to every process of the tree, parents first.
func (r *reaper) signalTree(sig syscall.Signal) {
	_ = signalGroup(r.agent, sig)
	procs, _ := r.tree()
	for _, p := range procs {
		_ = syscall.Kill(p.PID, sig)
	}
}

// treeGone reports whether nothing of the tree runs.
func (r *reaper) treeGone() bool {
	if r.subreaper {
		select {
		case <-r.childless:
			return true
		default:
		}
	}
	procs, ok := r.tree()
	if !ok {
		return errors.Is(syscall.Kill(-r.agent, 0), syscall.ESRCH)
	}
	return len(procs) == 0
}

// killTree SIGKILLs the tree until it is gone, each process as it is found:
// a process killed before it forks again starts nothing more, and on Linux
// its children come to the reaper, to be found on the next look.
func (r *reaper) killTree() {
	deadline := time.Now().Add(reaperGiveUp)
	for {
		r.signalTree(syscall.SIGKILL)
		if r.treeGone() || time.Now().After(deadline) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
