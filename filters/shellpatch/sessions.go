package shellpatch

import "container/list"

// sessions is the filter's state per session, bounded as its calls are
// (maxShellPatchCalls): agents send updates under session ids the client
// never created (subagents), as many as they like, and each must not cost
// the filter memory for the rest of the connection. Past the bound the
// session used least recently is forgotten.
//
// A forgotten session may come back. Its state is then made afresh, marked
// forgotten (see session): where claude's shell went meanwhile, and whether
// the session is claude's, are lost, and the filter stands aside where it
// would need them.
type sessions struct {
	max   int                      // 0: maxShellPatchCalls
	byID  map[string]*list.Element // each holds a *sessionEntry
	order list.List                // least recently used first
	// evicted: a session was forgotten, so a session first seen from now
	// on may be one that was.
	evicted bool
}

type sessionEntry struct {
	id    string
	state *session
}

// get returns the state of session id (nil: none), as used now.
func (ss *sessions) get(id string) *session {
	e := ss.byID[id]
	if e == nil {
		return nil
	}
	ss.order.MoveToBack(e)
	return e.Value.(*sessionEntry).state
}

// add keeps state for session id, forgetting the session used least
// recently when the bound is reached.
func (ss *sessions) add(id string, state *session) {
	if ss.byID == nil {
		ss.byID = map[string]*list.Element{}
	}
	if e := ss.byID[id]; e != nil {
		e.Value.(*sessionEntry).state = state
		ss.order.MoveToBack(e)
		return
	}
	max := ss.max
	if max <= 0 {
		max = maxShellPatchCalls
	}
	for ss.order.Len() >= max {
		oldest := ss.order.Front()
		delete(ss.byID, ss.order.Remove(oldest).(*sessionEntry).id)
		ss.evicted = true
	}
	ss.byID[id] = ss.order.PushBack(&sessionEntry{id, state})
}

// len is the number of sessions kept.
func (ss *sessions) len() int { return len(ss.byID) }
