package toolcall

// List is a filter's per tool call state, in the order the calls were first
// seen, which is the order held output is flushed in. Calls are keyed by
// session and toolCallId together: agents number calls per session or per
// turn (call_0, call_1, …), so an id alone can name calls of two sessions.
// A List is used by one direction's pump only. Get is one map lookup, so
// a filter can find the call of every message without a search per call.
type List[T any] struct {
	// Max bounds the calls kept; adding past it evicts the oldest. Calls
	// end (status completed/failed) or their turn ends long before this;
	// the bound is for agents that do neither. Zero means 128.
	Max   int
	items []entry[T]
	byKey map[key]*T
}

type key struct{ session, id string }

type entry[T any] struct {
	session, id string
	v           *T
}

func (l *List[T]) max() int {
	if l.Max <= 0 {
		return 128
	}
	return l.Max
}

// Get returns the state of call id in session, or nil.
func (l *List[T]) Get(session, id string) *T { return l.byKey[key{session, id}] }

// Len is the number of calls kept.
func (l *List[T]) Len() int { return len(l.items) }

// Add appends v for call id of session. When the list is full it first
// removes and returns the oldest call, for the caller to flush.
func (l *List[T]) Add(session, id string, v *T) (evicted *T) {
	if len(l.items) >= l.max() {
		evicted = l.RemoveOldest()
	}
	if l.byKey == nil {
		l.byKey = map[key]*T{}
	}
	l.items = append(l.items, entry[T]{session, id, v})
	l.byKey[key{session, id}] = v
	return evicted
}

// RemoveOldest forgets the call added first and returns it (nil if none).
func (l *List[T]) RemoveOldest() *T {
	if len(l.items) == 0 {
		return nil
	}
	e := l.items[0]
	l.items = append(l.items[:0], l.items[1:]...)
	if l.byKey[key{e.session, e.id}] == e.v {
		delete(l.byKey, key{e.session, e.id})
	}
	return e.v
}

// Remove forgets call id of session.
func (l *List[T]) Remove(session, id string) {
	if _, ok := l.byKey[key{session, id}]; !ok {
		return
	}
	delete(l.byKey, key{session, id})
	for i := range l.items {
		if l.items[i].id == id && l.items[i].session == session {
			l.items = append(l.items[:i], l.items[i+1:]...)
			return
		}
	}
}

// RemoveSession forgets the calls of session.
func (l *List[T]) RemoveSession(session string) {
	kept := l.items[:0]
	for _, e := range l.items {
		if e.session != session {
			kept = append(kept, e)
		} else {
			delete(l.byKey, key{e.session, e.id})
		}
	}
	clear(l.items[len(kept):])
	l.items = kept
}

// Each calls fn for every call, oldest first, until fn fails.
func (l *List[T]) Each(fn func(v *T) error) error {
	for _, e := range l.items {
		if err := fn(e.v); err != nil {
			return err
		}
	}
	return nil
}
