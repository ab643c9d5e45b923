package procgroup

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/agentproc/proctree"
)

// watchEvery is how often a Watch looks for new descendants.
const watchEvery = 200 * time.Millisecond

// outliveGrace is how long processes may take to die once their tree was
// stopped: the reaper's SIGKILL is in flight.
const outliveGrace = 5 * time.Second

// Watch notes every process that descends from pid, from now until the
// returned check is called, which the test calls once it has stopped pid.
// check fails t if any of them (or any live process in one of their process
// groups, started after the last look) still runs after outliveGrace, and
// kills them, so that one leak does not become a machine's worth. Only
// Linux and macOS list processes (see proctree); elsewhere check checks
// nothing.
func Watch(t testing.TB, pid int) (check func()) {
	w := &watch{root: pid, seen: map[[2]uint64]proctree.Proc{}, done: make(chan struct{})}
	if _, err := proctree.List(); err != nil {
		return func() {}
	}
	w.look()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(watchEvery)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
				w.look()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(w.done)
			<-stopped
			w.check(t)
		})
	}
}

type watch struct {
	root int
	done chan struct{}
	mu   sync.Mutex
	seen map[[2]uint64]proctree.Proc // by pid and start time
}

// look adds the root's current descendants to those seen.
func (w *watch) look() {
	procs, err := proctree.List()
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range proctree.Descendants(procs, w.root) {
		w.seen[[2]uint64{uint64(p.PID), p.Start}] = p
	}
}

// survivors are the seen processes still live, and the live members of
// their process groups (bar this process's own group).
func (w *watch) survivors() []proctree.Proc {
	w.mu.Lock()
	seen := make([]proctree.Proc, 0, len(w.seen))
	for _, p := range w.seen {
		seen = append(seen, p)
	}
	w.mu.Unlock()
	procs, err := proctree.List()
	if err != nil {
		return nil
	}
	own := ownGroup()
	var out []proctree.Proc
	for _, p := range procs {
		if !p.Live() || p.PID == os.Getpid() {
			continue
		}
		for _, s := range seen {
			if (p.PID == s.PID && p.Start == s.Start) || (p.PGID == s.PGID && p.PGID != own) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func (w *watch) check(t testing.TB) {
	var left []proctree.Proc
	deadline := time.Now().Add(outliveGrace)
	for {
		if left = w.survivors(); len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(left) == 0 {
		return
	}
	var names []string
	for _, p := range left {
		names = append(names, fmt.Sprintf("%d (%s, group %d)", p.PID, p.Comm, p.PGID))
		if proc, err := os.FindProcess(p.PID); err == nil {
			_ = proc.Kill()
		}
	}
	slices.Sort(names)
	t.Errorf("processes started under %d outlived it (now killed): %s", w.root, strings.Join(names, ", "))
}
