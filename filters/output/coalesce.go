package output

import (
	"time"

	"github.com/acp-proxy/acp-proxy/filters/toolcall"
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
//   - Final: the update that ends the call carries the complete output, once.
//
// A fast large stream (35,001 lines, 374 KB, in about a second) is so sent
// at sizes about doubling each time, several times while it runs, for at
// most 2 × its size + 64 KiB (+ 32 KiB/s) before the final copy; a small
// output is shown every interval; and a slow large one at most every
// interval, at an average of 32 KiB/s (a 320 KB output that still grows is
// re-sent about every 10 s).
// DefaultCoalesceInterval bounds how long coalesced output waits.
const DefaultCoalesceInterval = 100 * time.Millisecond

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

// due is when a send of cost bytes, for output of size bytes, may happen.
// The zero time means at once.
func (p *pacer) due(interval time.Duration, cost, size int) time.Time {
	if !p.any {
		return time.Time{}
	}
	t := p.last.Add(interval)
	if over := p.sent + int64(cost) - budgetFactor*int64(size) - budgetSlack; over > 0 {
		if w := p.first.Add(time.Duration(float64(over) / rateBytes * float64(time.Second))); w.After(t) {
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

// sendDue sends every call of l that holds output due at now (held reports
// whether a call holds output, and when it is due) and returns when the next
// held call is due: the Tick of both coalescing filters.
func sendDue[T any](l *toolcall.List[T], now time.Time, held func(*T) (bool, time.Time), send func(*T) error) (next time.Time) {
	_ = l.Each(func(c *T) error {
		h, due := held(c)
		if !h {
			return nil
		}
		if isDue(due, now) {
			return send(c)
		}
		next = earliest(next, due)
		return nil
	})
	return next
}
