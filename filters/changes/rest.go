package changes

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// shared is a before-state that several calls may compare with: taken by
// its session's scanner, and closed when the last holder lets go — its
// take stopped, when that comes first.
type shared struct {
	root    string
	ctx     context.Context // cancelled when the last holder lets go, or the filter closes
	cancel  context.CancelCauseFunc
	started atomic.Bool   // the scanner began taking it
	asked   atomic.Int64  // when it was last asked for (Unix nanoseconds): the moment it stands for
	done    chan struct{} // closed once snap is set
	snap    Snapshot
	refs    atomic.Int32
	mu      sync.Mutex // orders set and the last release: one of them closes snap
	set1    bool       // snap is set
	dropped bool       // the last holder let go
}

// newShared is the before-state of root, to be taken, held once.
func newShared(parent context.Context, root string) *shared {
	s := &shared{root: root, done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancelCause(parent)
	s.refs.Store(1)
	s.asked.Store(time.Now().UnixNano())
	return s
}

// errSuperseded is why a take nobody holds any more stops.
var errSuperseded = errors.New("a newer one was asked for")

// set makes snap the before-state, taken.
func (s *shared) set(snap Snapshot) {
	s.mu.Lock()
	s.snap, s.set1 = snap, true
	dropped := s.dropped
	s.mu.Unlock()
	close(s.done)
	if dropped {
		snap.Close()
	}
}

// hold takes one more hold on s.
func (s *shared) hold() *shared { s.refs.Add(1); return s }

// release lets go of one hold; the last stops the take, or closes the
// snapshot taken.
func (s *shared) release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	s.cancel(errSuperseded)
	s.mu.Lock()
	s.dropped = true
	taken := s.set1
	s.mu.Unlock()
	if taken {
		s.snap.Close()
	}
}

// taken reports whether the snapshot is taken.
func (s *shared) taken() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// waitingFor reports whether s is a take of root not started yet that only
// its rest holds: taken later, it stands for a later ask as well.
func (s *shared) waitingFor(root string) bool {
	return s.root == root && !s.started.Load() && s.refs.Load() == 1
}

// superseded reports whether s is still being taken and only its rest
// holds it: a newer rest makes it useless.
func (s *shared) superseded() bool { return !s.taken() && s.refs.Load() == 1 }

// rest is a session's before-state at rest: taken when its prompt was
// sent, and again each time its last command ended. A command compares
// with the rest that stands when it starts, so that its first writes,
// made while the proxy is still looking, are never missed; the update
// says since when it looked.
type rest struct {
	snap  *shared // nil in a replay
	since string  // the moment it stands for, as the update says it
	// prev is the rest before, kept until the next: a command that starts
	// while snap is still being taken compares with prev, since snap may
	// already see the command's first writes. What prev's window holds
	// that an earlier update showed is not shown again.
	prev      *shared
	prevSince string
	// at and prevAt are the filter's clock when each was taken: a diff
	// the client was shown since then is not shown again.
	at, prevAt int64
}

// What a call's changes are counted since.
const (
	sincePrompt      = "since the prompt was sent"
	sinceLastCommand = "since the previous command ended"
	sinceLastEdit    = "since the agent's previous edit ended"
	sinceStart       = "since this command started (the proxy had not looked before; a write it made at once may be missed)"
)

// rests are the sessions' rests, kept under a lock of their own: a prompt
// (client→agent) sets one, a call (agent→client) takes it. Past
// maxSessions, the session used least recently loses its rest.
type rests struct {
	mu   sync.Mutex
	m    map[string]*rest
	used map[string]uint64 // when each session's rest was last set or taken
	tick uint64
}

// touch notes that session sid's rest is in use now.
func (r *rests) touch(sid string) {
	r.tick++
	r.used[sid] = r.tick
}

// ask has session sid's rest stand for the directory root from the moment
// at (the filter's clock; since says it in words). A take still waiting
// for its turn that no call holds is taken once, later, for both asks;
// else start starts a new one (nil: a replay, which takes none), and one
// still being taken that no call holds is stopped, superseded.
func (r *rests) ask(sid, root, since string, at int64, start func() *shared) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m, r.used = map[string]*rest{}, map[string]uint64{}
	}
	r.touch(sid)
	cur := r.m[sid]
	if cur != nil && cur.snap != nil && cur.snap.waitingFor(root) {
		cur.since, cur.at = since, at
		cur.snap.asked.Store(time.Now().UnixNano())
		return
	}
	next := &rest{since: since, at: at}
	if start != nil {
		next.snap = start()
	}
	switch {
	case cur == nil:
	case cur.snap != nil && cur.snap.superseded():
		next.prev, next.prevSince, next.prevAt = cur.prev, cur.prevSince, cur.prevAt
		cur.snap.release()
	default:
		if cur.prev != nil {
			cur.prev.release()
		}
		next.prev, next.prevSince, next.prevAt = cur.snap, cur.since, cur.at
	}
	r.m[sid] = next
	if len(r.m) > maxSessions {
		r.evict(r.leastUsed())
	}
}

// close lets go of every session's rest.
func (r *rests) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for sid := range r.m {
		r.evict(sid)
	}
}

// leastUsed is the session whose rest was used least recently.
func (r *rests) leastUsed() string {
	var lru string
	for k, at := range r.used {
		if lru == "" || at < r.used[lru] {
			lru = k
		}
	}
	return lru
}

// evict lets go of session sid's rest.
func (r *rests) evict(sid string) {
	if old := r.m[sid]; old != nil {
		old.release()
	}
	delete(r.m, sid)
	delete(r.used, sid)
}

// release lets go of both before-states of a rest.
func (rs *rest) release() {
	for _, s := range []*shared{rs.snap, rs.prev} {
		if s != nil {
			s.release()
		}
	}
}

// window is the before-state a call compares with, and the moment it
// stands for.
type window struct {
	snap  *shared // held for the call; nil in a replay
	since string
	at    int64
	// earlier: the rest before was taken, the rest being still taken;
	// prevAt is when that one was (a replay, which takes none, learns the
	// choice from the trace).
	earlier bool
	prevAt  int64
}

// get holds session sid's rest for a call; ok is false when there is none.
func (r *rests) get(sid string) (w window, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.m[sid]
	if rs == nil {
		return window{}, false
	}
	r.touch(sid)
	w = window{since: rs.since, at: rs.at, prevAt: rs.prevAt}
	switch {
	case rs.snap != nil && !rs.snap.taken() && rs.prev != nil:
		w.snap, w.since, w.at, w.earlier = rs.prev.hold(), rs.prevSince, rs.prevAt, true
	case rs.snap != nil:
		w.snap = rs.snap.hold()
	}
	return w, true
}

// maxSessions bounds the sessions whose rest is held.
const maxSessions = 8
