package telemetry

// recent is a map of at most max entries by key that forgets the least
// recently used one to make room: per-session state the proxy keeps for as
// long as a session may still be used, bounded whatever a peer does. Not
// safe for concurrent use.
type recent[V any] struct {
	max  int
	m    map[string]*recentEntry[V]
	tick uint64
}

type recentEntry[V any] struct {
	v    V
	used uint64
}

func newRecent[V any](max int) *recent[V] {
	return &recent[V]{max: max, m: map[string]*recentEntry[V]{}}
}

// get is k's value, now the most recently used.
func (r *recent[V]) get(k string) (v V, ok bool) {
	e := r.m[k]
	if e == nil {
		return v, false
	}
	r.tick++
	e.used = r.tick
	return e.v, true
}

// put sets k's value; when that makes one too many, it forgets the least
// recently used other key and returns its value (evicted).
func (r *recent[V]) put(k string, v V) (old V, evicted bool) {
	r.tick++
	if e := r.m[k]; e != nil {
		e.v, e.used = v, r.tick
		return old, false
	}
	if len(r.m) >= r.max {
		var lk string
		var le *recentEntry[V]
		for key, e := range r.m { // only when full, at a new key: rare
			if le == nil || e.used < le.used {
				lk, le = key, e
			}
		}
		delete(r.m, lk)
		old, evicted = le.v, true
	}
	r.m[k] = &recentEntry[V]{v: v, used: r.tick}
	return old, evicted
}

func (r *recent[V]) delete(k string) { delete(r.m, k) }

// each calls fn with every value, in no order.
func (r *recent[V]) each(fn func(k string, v V)) {
	for k, e := range r.m {
		fn(k, e.v)
	}
}
