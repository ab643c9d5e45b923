package changes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// pending is an ended command's report: made by its session's scanner,
// then sent by Tick in the order the calls ended.
type pending struct {
	call   *call
	status string
	// done is closed once the report is made: report and err are the
	// scanner's until then, and never written after. A report not made is
	// given up without reading them.
	done   chan struct{}
	report []byte // the Report as JSON; nil in a replay
	err    error
	// later are the calls of the session that started while the report
	// was being made (at most maxOthers; moreLater counts the rest): the
	// pump's, as call is.
	later     []*call
	moreLater int
	// end is the agent's update that ended the call, held (since
	// end.Time) to carry the report's diffs; nil once it left, or when
	// none can carry them.
	end *filters.Held
}

func newPending(c *call, status string) *pending {
	return &pending{call: c, status: status, done: make(chan struct{})}
}

// made reports whether p's report is made.
func (p *pending) made() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wait waits until p's report is made, or until deadline.
func (p *pending) wait(deadline time.Time) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

// scanners run the scans of a connection's sessions: per session one
// goroutine at most, doing one scan at a time, in the order asked — the
// before-states to take and the reports to make. A report is made from
// the same scan as the reports queued right behind it that compare with
// the same before-state (30 commands ending at once cost one scan, not
// 30 at once). Close stops them all.
type scanners struct {
	mu       sync.Mutex
	ctx      context.Context // cancelled by close
	cancel   context.CancelCauseFunc
	sessions map[string]*scanner
	running  sync.WaitGroup
	wake     func(acp.Direction) // nil: none (a test's chain without a driver)
	closed   bool
	// aside: the sessions whose directory a take found too big to watch
	// (or that the flag refuses), and why: it is not scanned again.
	aside map[string]string
}

// scanner is one session's queue of scans, under scanners.mu.
type scanner struct {
	work    []scanWork
	running bool
}

// scanWork is a before-state to take, or a report to make.
type scanWork struct {
	take   *shared
	using  func(ctx context.Context, root string, lim Limits) Snapshot
	lim    Limits
	report *pending
}

// errClosed is why the scans of a closed filter stop.
var errClosed = errors.New("the connection ended")

func (sc *scanners) init() {
	if sc.sessions == nil {
		sc.sessions = map[string]*scanner{}
		sc.ctx, sc.cancel = context.WithCancelCause(context.Background())
	}
}

// setWake sets what a made report wakes.
func (sc *scanners) setWake(wake func(acp.Direction)) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.wake = wake
}

// take queues the take of root's before-state for session sid, with take
// and lim; the shared before-state is held once.
func (sc *scanners) take(sid, root string, take func(context.Context, string, Limits) Snapshot, lim Limits) *shared {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.init()
	if why, ok := sc.aside[sid]; ok {
		take = takeAside(why)
	}
	s := newShared(sc.ctx, root)
	sc.queue(sid, scanWork{take: s, using: take, lim: lim})
	return s
}

// report queues the making of p's report.
func (sc *scanners) report(p *pending) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.init()
	sc.queue(p.call.key.session, scanWork{report: p})
}

// queue adds w to session sid's scans, starting its goroutine when none
// runs. Under sc.mu.
func (sc *scanners) queue(sid string, w scanWork) {
	if sc.closed {
		do(sc.ctx, []scanWork{w}) // stopped at once, its context cancelled; nobody is woken
		return
	}
	s := sc.sessions[sid]
	if s == nil {
		s = &scanner{}
		sc.sessions[sid] = s
	}
	s.work = append(s.work, w)
	if s.running {
		return
	}
	s.running = true
	sc.running.Add(1)
	go sc.run(sid, s)
}

// run does session sid's scans until none is queued.
func (sc *scanners) run(sid string, s *scanner) {
	defer sc.running.Done()
	for {
		sc.mu.Lock()
		if len(s.work) == 0 {
			s.running = false
			delete(sc.sessions, sid)
			sc.mu.Unlock()
			return
		}
		w := s.work[0]
		n := 1
		if w.report != nil {
			for n < len(s.work) && s.work[n].report != nil && sameBefore(s.work[n].report, w.report) {
				n++
			}
		}
		batch := s.work[:n:n]
		s.work = s.work[n:]
		if why, ok := sc.aside[sid]; ok && w.take != nil {
			// Queued before an earlier take found the tree too big to
			// watch: that take's answer stands, without another walk.
			batch[0].using = takeAside(why)
		}
		ctx := sc.ctx
		sc.mu.Unlock()
		if do(ctx, batch) {
			sc.woken()
		}
		if w := batch[0]; w.take != nil {
			sc.standAside(sid, w.take.snap)
		}
	}
}

// takeAside is the take of a directory the flag stands aside for, why.
func takeAside(why string) func(context.Context, string, Limits) Snapshot {
	return func(context.Context, string, Limits) Snapshot { return aside{why} }
}

// standAside remembers that session sid's directory is not scanned again
// when snap, a before-state just taken, stands aside for it.
func (sc *scanners) standAside(sid string, snap Snapshot) {
	a, ok := snap.(aside)
	if !ok {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.aside == nil {
		sc.aside = map[string]string{}
	}
	sc.aside[sid] = a.why
}

// woken wakes the driver (the one now: a scan may outlast one) on a
// goroutine of its own: the driver's locks may be held by a Drain that
// waits for this scanner's next report.
func (sc *scanners) woken() {
	sc.mu.Lock()
	wake := sc.wake
	sc.mu.Unlock()
	if wake != nil {
		go wake(acp.AgentToClient)
	}
}

// do takes the before-state batch holds, or makes its reports; it
// reports whether it made reports.
func do(ctx context.Context, batch []scanWork) bool {
	if w := batch[0]; w.take != nil {
		w.take.started.Store(true)
		w.take.set(takeOrNot(w))
		return false
	}
	makeReports(ctx, batch)
	return true
}

// takeOrNot takes w's before-state, unless its take was stopped first.
func takeOrNot(w scanWork) Snapshot {
	ctx := w.take.ctx
	if ctx.Err() != nil {
		return failed{"not looked at: " + context.Cause(ctx).Error()}
	}
	return w.using(withAsked(ctx, w.take.asked.Load()), w.take.root, w.lim)
}

// sameBefore reports whether p and q compare with the same before-state,
// so that one scan makes both reports.
func sameBefore(p, q *pending) bool {
	return p.call.before != nil && p.call.before == q.call.before
}

// makeReports makes the reports of ps, which compare with the same
// before-state, from one scan, and lets go of their hold on it.
func makeReports(ctx context.Context, ps []scanWork) {
	before := ps[0].report.call.before
	var r Report
	switch {
	case before == nil:
		r = Report{Files: []Change{}, Note: fmt.Sprintf("not looked at: more than %d commands ran at once", maxSnapshots)}
	case ctx.Err() != nil:
		r = Report{Files: []Change{}, Note: "not looked at: " + context.Cause(ctx).Error()}
	default:
		<-before.done // taken first: it was queued before
		r = before.snap.Changes(ctx)
	}
	for _, w := range ps {
		p := w.report
		r.Since, r.Earlier = p.call.since, p.call.earlier
		mine := r
		mine.Files = placed(r.Files, p.call)
		p.report, p.err = json.Marshal(mine)
		close(p.done)
		if before != nil {
			before.release()
		}
	}
}

// clockSlack is how far a file's time may stand from the moment the proxy
// saw a call start or end and still be the call's: the kernel stamps files
// with a coarse clock, and an agent may start a command a moment before
// its notification is read.
const clockSlack = 100 * time.Millisecond

// placed is files, each placed against c's run by its time (When): before
// c was announced, or after it ended; a copy, as other calls share files.
func placed(files []Change, c *call) []Change {
	out := slices.Clone(files)
	slack := clockSlack.Nanoseconds()
	for i := range out {
		ch := &out[i]
		switch {
		case ch.mtime == 0:
		case c.announced != 0 && ch.mtime < c.announced-slack:
			ch.When = whenBefore
		case !ch.dirTime && c.ended != 0 && ch.mtime > c.ended+slack:
			ch.When = whenAfter
		}
	}
	return out
}

// The moments a change is placed at (Change.When).
const (
	whenBefore = "before"
	whenAfter  = "after"
)

// close stops the scans: what runs is cancelled, what is queued is done
// at once as not looked at; it returns once every scanner has stopped.
func (sc *scanners) close() {
	sc.mu.Lock()
	sc.init()
	sc.closed = true
	sc.cancel(errClosed)
	sc.mu.Unlock()
	sc.running.Wait()
}
