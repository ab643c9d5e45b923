package output

import (
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// The coalescing policy, shared by the terminal-output translation and by
// deltas for clients without the extension. Such a client can only be shown
// a tool call's output by re-sending all of it (content replaces content),
// so sending every chunk costs O(n²) bytes. Instead, per tool call:
//
//   - Leading edge: the first output is sent at once.
//   - Interval: later output waits at least the coalesce interval (default
//     100 ms) after the previous send; what arrived meanwhile is merged, the
//     latest output wins.
//   - Budget: a send may happen only while the bytes sent for the call, this
//     send included, stay within budgetFactor (2) × the output's size +
//     budgetSlack (64 KiB) + rateBytes (32 KiB) per second since the first
//     send. Otherwise it waits until the budget allows it, or the output
//     has grown enough.
//   - Tail: while the command runs, an update shows at most
//     DefaultLiveTailBytes (--live-tail-bytes) of output: past it, the last
//     lines within it, after a line "… N earlier lines not shown (live
//     tail) …" (stream.live), so a send costs at most the budget.
//   - Final: the update that ends the call carries the complete output, once.
//
// A small output is so shown every interval, whole; a large one every
// interval as a tail of at most the tail budget, as long as the bytes sent
// stay within the budget (a tail of 64 KiB of a 374 KB output that grows
// in about a second is sent at most every interval); and the final update
// shows it all once.
// DefaultCoalesceInterval bounds how long coalesced output waits.
const DefaultCoalesceInterval = 100 * time.Millisecond

// NoCoalescing as a filter's Interval is none: each update is sent as it
// comes, as far as the byte budget allows (--coalesce-interval 0).
const NoCoalescing time.Duration = -1

// DefaultLiveTailBytes is how much of a running command's output a client
// without the extension is sent per update (--live-tail-bytes): past it,
// the update shows the last lines within it, after a line saying how many
// came before (a live tail); the update that ends the call shows all of
// it. So the bytes sent while a command runs grow with the updates, not
// with updates × output.
const DefaultLiveTailBytes = 64 << 10

const (
	budgetFactor = 2
	budgetSlack  = 64 << 10
	rateBytes    = 32 << 10 // per second
)

// pacer is the policy's state for one tool call. The zero value has sent
// nothing.
type pacer struct {
	first, last time.Time // the first and the latest send
	sent        int64     // bytes sent for the call
	any         bool      // something was sent
}

// due is when a send of cost bytes, for output of size bytes, may happen,
// for one of share calls that stream at once. The zero time means at once.
// The rate beyond a call's own allowance (budgetFactor × its size +
// budgetSlack) is rateBytes for all the calls together, each getting its
// share: with many calls streaming, the bytes sent stay linear in their
// output, not in the number of calls × the time.
func (p *pacer) due(interval time.Duration, cost, size, share int) time.Time {
	if !p.any {
		return time.Time{}
	}
	t := p.last.Add(interval)
	if over := p.sent + int64(cost) - budgetFactor*int64(size) - budgetSlack; over > 0 {
		rate := float64(rateBytes) / float64(max(1, share))
		if w := p.first.Add(time.Duration(float64(over) / rate * float64(time.Second))); w.After(t) {
			t = w
		}
	}
	return t
}

// record notes a send of cost bytes at now.
func (p *pacer) record(now time.Time, cost int) {
	if !p.any {
		p.first = now
	}
	p.last, p.sent, p.any = now, p.sent+int64(cost), true
}

// isDue reports whether t (from due) has come at now.
func isDue(t, now time.Time) bool { return t.IsZero() || !t.After(now) }

// earliest returns the earlier of two due times, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// interval is d, DefaultCoalesceInterval when d is zero, and none for
// NoCoalescing.
func interval(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultCoalesceInterval
	case d < 0:
		return 0
	}
	return d
}

// slot is a call's place under the policy: what was sent, and whether and
// until when output is held.
type slot struct {
	pace pacer
	held bool      // output waits to be sent
	due  time.Time // when the held output may go
	// unsettled: the call was evicted to make room for another (more calls
	// stream at once than a filter follows) without its output being sent
	// whole; it is, once its turn or the agent's output ends, or when it is
	// forgotten (coalescer.evict).
	unsettled bool
	// revived: the call had stopped being followed (it ended, its turn
	// ended, or it was evicted) and streams again. No final update may
	// come to show its output whole, so once its output pauses for
	// settleAfter, all of it is sent (at settle).
	revived bool
	settle  time.Time
}

// settleAfter is how long a revived call's output must pause before the
// client is sent all of it in place of a live tail.
const settleAfter = time.Second

// heldCall is the per-call state of a coalescing filter.
type heldCall interface {
	slot() *slot
	// heldUpdate is the message that shows what the call holds, and its
	// cost for the budget.
	heldUpdate() (msg []byte, cost int, err error)
	// wholeUpdate is the message that shows all the output the call
	// holds, when the client shows less (a live tail) or output is held;
	// else nil.
	wholeUpdate() (msg []byte, err error)
	// key is the call's session and id.
	key() (session, id string)
	// endedBudget is how many bytes of calls that ended the filter keeps
	// (retired), so that their later output is appended to what the
	// client shows; zero: none.
	endedBudget() int64
	// size is the bytes the call holds.
	size() int
}

// coalescer is what both coalescing filters (Deltas for a client without
// the extension, TerminalOutput's translation) keep and do alike: the
// calls, the turns they belong to, what the client advertised, and
// sending held output under the policy. Its Tick and Drain are the
// filters'. T is the filter's per-call state.
type coalescer[T any, P interface {
	*T
	heldCall
}] struct {
	client clientView
	calls  toolcall.List[T]
	ended  retired[T, P]
}

// add starts keeping c for call id of session; a full list first evicts
// its oldest call.
func (k *coalescer[T, P]) add(session, id string, c P, now time.Time, out filters.Emitter) error {
	if old := P(k.calls.Add(session, id, (*T)(c))); old != nil {
		return k.evict(old, now, out)
	}
	return nil
}

// evict stops following c to make room for another call: it is kept among
// the ended calls, unsettled, and its output is not sent now. Sending it
// whole at each eviction would re-send a whole output for nearly every
// update once more calls stream than a filter follows; it is sent when its
// turn ends, when the agent's output ends, or when it is forgotten, unless
// the call streams again first (revive) and so is followed again.
func (k *coalescer[T, P]) evict(c P, now time.Time, out filters.Emitter) error {
	c.slot().unsettled = true
	return k.keepEnded(c, now, out)
}

// keepEnded keeps c among the ended calls, and settles the unsettled calls
// that so stop being kept.
func (k *coalescer[T, P]) keepEnded(c P, now time.Time, out filters.Emitter) error {
	for _, gone := range k.ended.keep(c) {
		if err := k.settleEvicted(gone, now, out); err != nil {
			return err
		}
	}
	return nil
}

// settleEvicted sends an evicted call's output whole, once.
func (k *coalescer[T, P]) settleEvicted(c P, now time.Time, out filters.Emitter) error {
	s := c.slot()
	if !s.unsettled {
		return nil
	}
	s.unsettled = false
	return k.settle(c, now, out)
}

// settleEnded settles the evicted calls kept among the ended ones, of
// session, or of every session when all.
func (k *coalescer[T, P]) settleEnded(session string, all bool, now time.Time, out filters.Emitter) error {
	return k.ended.calls.Each(func(t *T) error {
		c := P(t)
		if s, _ := c.key(); all || s == session {
			return k.settleEvicted(c, now, out)
		}
		return nil
	})
}

// mayAnnounce reports whether raw may be a tool_call: its head says its
// kind (acp.ReadUpdateHead), or, when it does not (claude-agent-acp writes
// _meta first), it mentions one.
func mayAnnounce(raw []byte) bool {
	if h, ok := acp.ReadUpdateHead(raw); ok && h.Kind != nil {
		return string(h.Kind) == "tool_call"
	}
	return mentions(raw, quotedToolCallStart)
}

// announced forgets what the filter keeps of a call whose id a tool_call
// announces again: agents that number their calls per turn reuse ids, and
// the new call's output must not be appended to the old one's (the client
// starts the call anew too).
func (k *coalescer[T, P]) announced(m *filters.Message) {
	if k.calls.Len() == 0 && k.ended.calls.Len() == 0 || !mayAnnounce(m.Raw) {
		return
	}
	u, ok := m.ToolUpdate()
	if !ok || u.SessionUpdate != "tool_call" {
		return
	}
	sid := m.SessionID()
	k.ended.drop(sid, u.ID)
	k.calls.Remove(sid, u.ID)
}

// revive returns the ended call id of session, following it again, or nil.
func (k *coalescer[T, P]) revive(session, id string, now time.Time, out filters.Emitter) (P, error) {
	c := k.ended.take(session, id)
	if c == nil {
		return nil, nil
	}
	c.slot().revived, c.slot().unsettled = true, false
	return c, k.add(session, id, c, now, out)
}

// settle sends the client all the output c holds, when it shows less.
func (k *coalescer[T, P]) settle(c P, now time.Time, out filters.Emitter) error {
	msg, err := c.wholeUpdate()
	if err != nil || msg == nil {
		return err
	}
	s := c.slot()
	s.pace.record(now, len(msg))
	s.held = false
	return out.Emit(acp.AgentToClient, msg)
}

// retire stops following c, which k no longer keeps among its calls: the
// client is sent all of its output, and the call is kept among the ended
// ones, when the filter keeps those.
func (k *coalescer[T, P]) retire(c P, now time.Time, out filters.Emitter) error {
	if err := k.settle(c, now, out); err != nil {
		return err
	}
	return k.keepEnded(c, now, out)
}

// endTurn retires the calls of session, whose turn is over.
func (k *coalescer[T, P]) endTurn(session string, now time.Time, out filters.Emitter) error {
	var over []P
	_ = k.calls.Each(func(t *T) error {
		if s, _ := P(t).key(); s == session {
			over = append(over, P(t))
		}
		return nil
	})
	k.calls.RemoveSession(session)
	for _, c := range over {
		if err := k.retire(c, now, out); err != nil {
			return err
		}
	}
	return k.settleEnded(session, false, now, out)
}

// hold keeps c's output back, in place of the message that brought it,
// until the policy lets it go (at once, when it already does): cost is
// what sending it costs, size the output's size.
func (k *coalescer[T, P]) hold(c P, every time.Duration, cost, size int, now time.Time, out filters.Emitter) error {
	s := c.slot()
	s.held = true
	s.due = s.pace.due(every, cost, size, k.calls.Len())
	if s.revived {
		s.settle = now.Add(settleAfter)
	}
	if isDue(s.due, now) {
		return k.send(c, now, out)
	}
	return filters.Drop // held: sent by Tick when due
}

// sent notes that c's output went out at now inside another message.
func sent[P heldCall](c P, now time.Time, cost int) {
	s := c.slot()
	s.pace.record(now, cost)
	s.held = false
}

// send emits c's held output.
func (k *coalescer[T, P]) send(c P, now time.Time, out filters.Emitter) error {
	msg, cost, err := c.heldUpdate()
	if err != nil {
		return err
	}
	sent(c, now, cost)
	return out.Emit(acp.AgentToClient, msg)
}

// flush sends the held output of every call but except.
func (k *coalescer[T, P]) flush(now time.Time, out filters.Emitter, except P) error {
	return k.calls.Each(func(t *T) error {
		if c := P(t); c != except && c.slot().held {
			return k.send(c, now, out)
		}
		return nil
	})
}

// forward emits m, which the filter does not change, after the output it
// holds, and forgets the calls of a session whose turn m ends.
func (k *coalescer[T, P]) forward(m *filters.Message, out filters.Emitter) error {
	if err := k.flush(m.Time, out, nil); err != nil {
		return err
	}
	if sid, ok := turnEnded(m); ok {
		if err := k.endTurn(sid, m.Time, out); err != nil {
			return err
		}
	}
	return out.Emit(m.Dir, m.Raw)
}

// Tick implements filters.Timed: it sends the held output that is due, and
// returns when the next is.
func (k *coalescer[T, P]) Tick(d acp.Direction, now time.Time, out filters.Emitter) (next time.Time) {
	if d != acp.AgentToClient {
		return time.Time{}
	}
	_ = k.calls.Each(func(t *T) error {
		c := P(t)
		s := c.slot()
		switch {
		case s.held && isDue(s.due, now):
			if err := k.send(c, now, out); err != nil {
				return err
			}
		case s.held:
			next = earliest(next, s.due)
		}
		switch {
		case s.settle.IsZero():
		case !s.held && isDue(s.settle, now):
			s.settle = time.Time{}
			return k.settle(c, now, out)
		default:
			next = earliest(next, s.settle)
		}
		return nil
	})
	return next
}

// Drain implements filters.Timed: the agent's output ended, so every
// call's output is sent whole.
func (k *coalescer[T, P]) Drain(d acp.Direction, out filters.Emitter) {
	if d == acp.AgentToClient {
		_ = k.calls.Each(func(t *T) error { return k.settle(P(t), time.Time{}, out) })
		_ = k.settleEnded("", true, time.Time{}, out)
	}
}

// skips is Skips for Deltas and TerminalOutput: a notification about no
// tool call is forwarded as it is (forward) when no output is held to go
// before it; a notification ends no turn.
func (k *coalescer[T, P]) skips(g filters.Glance) bool {
	if !g.Notification || g.Tool {
		return false
	}
	held := false
	_ = k.calls.Each(func(t *T) error {
		held = held || P(t).slot().held
		return nil
	})
	return !held
}
