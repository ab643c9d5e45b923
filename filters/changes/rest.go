package changes

import (
	"sync"
	"sync/atomic"
)

// shared is a before-state that several calls may compare with: it is
// taken on a goroutine, and closed when the last call holding it lets go.
type shared struct {
	done chan struct{}
	snap Snapshot
	refs atomic.Int32
}

// takeShared starts taking the before-state of root, held once.
func takeShared(take func(string, Limits) Snapshot, root string, lim Limits) *shared {
	s := &shared{done: make(chan struct{})}
	s.refs.Store(1)
	go func() {
		s.snap = take(root, lim)
		close(s.done)
	}()
	return s
}

// hold takes one more hold on s.
func (s *shared) hold() *shared { s.refs.Add(1); return s }

// release lets go of one hold; the last closes the snapshot once taken.
func (s *shared) release() {
	if s.refs.Add(-1) == 0 {
		go func() {
			<-s.done
			s.snap.Close()
		}()
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

// changes waits for the snapshot and reports what differs now.
func (s *shared) changes() Report {
	<-s.done
	return s.snap.Changes()
}

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

// set replaces session sid's rest, letting go of the one before.
func (r *rests) set(sid string, next *rest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m, r.used = map[string]*rest{}, map[string]uint64{}
	}
	if old := r.m[sid]; old != nil {
		if old.prev != nil {
			old.prev.release()
		}
		next.prev, next.prevSince, next.prevAt = old.snap, old.since, old.at
	}
	r.m[sid] = next
	r.touch(sid)
	if len(r.m) > maxSessions {
		r.evict(r.leastUsed())
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
