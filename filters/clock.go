package filters

import (
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// TimerClock is the wall clock, waking a Driver with a timer per direction.
type TimerClock struct {
	now func() time.Time
	// OnError is told when a wake fails (a write downstream failed); nil:
	// the failure is ignored.
	OnError func(d acp.Direction, err error)
	mu      [2]sync.Mutex
	timers  [2]*time.Timer
	wakes   [2]func() error
}

// NewTimerClock returns a clock reading now (nil: time.Now).
func NewTimerClock(now func() time.Time) *TimerClock {
	if now == nil {
		now = time.Now
	}
	return &TimerClock{now: now}
}

func (c *TimerClock) Now() time.Time { return c.now() }

// Wake implements Clock with a timer per direction, made once and reset.
func (c *TimerClock) Wake(d acp.Direction, t time.Time, wake func() error) {
	c.mu[d].Lock()
	defer c.mu[d].Unlock()
	c.wakes[d] = wake
	switch {
	case t.IsZero():
		if c.timers[d] != nil {
			c.timers[d].Stop()
		}
	case c.timers[d] == nil:
		c.timers[d] = time.AfterFunc(t.Sub(c.now()), func() { c.fire(d) })
	default:
		c.timers[d].Reset(t.Sub(c.now()))
	}
}

func (c *TimerClock) fire(d acp.Direction) {
	c.mu[d].Lock()
	wake := c.wakes[d]
	c.mu[d].Unlock()
	if wake == nil {
		return
	}
	if err := wake(); err != nil && c.OnError != nil {
		c.OnError(d, err)
	}
}

// ManualClock is a Clock that moves only when told to: a replay moves it
// to each record's time, a test by the time it lets pass. The wakes due on
// the way run at their own times, so what a replay or a test sees is what
// the relay would have done at those times. A wake may be asked for from
// any goroutine (a filter's work done off the pump); it runs when the clock
// next moves.
type ManualClock struct {
	mu    sync.Mutex
	now   time.Time
	wakes [2]manualWake
}

type manualWake struct {
	at   time.Time
	wake func() error
}

// NewManualClock returns a clock standing at now.
func NewManualClock(now time.Time) *ManualClock { return &ManualClock{now: now} }

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Wake implements Clock. A wake asked for at or before now runs a
// microsecond later: a filter must not stop the clock.
func (c *ManualClock) Wake(d acp.Direction, t time.Time, wake func() error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.IsZero() && !t.After(c.now) {
		t = c.now.Add(time.Microsecond)
	}
	c.wakes[d] = manualWake{at: t, wake: wake}
}

// Advance moves the clock to t (never back), running the wakes due by then
// in time order, each at its own time (client→agent first at the same
// time). It returns the first wake's error, where it stopped.
func (c *ManualClock) Advance(t time.Time) error {
	for {
		w, ok := c.due(t)
		if !ok {
			break
		}
		if err := w.wake(); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	return nil
}

// due takes the first wake due by t, moving the clock to its time.
func (c *ManualClock) due(t time.Time) (manualWake, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := acp.ClientToAgent
	if w, o := c.wakes[d], c.wakes[d.Reverse()]; w.at.IsZero() || !o.at.IsZero() && o.at.Before(w.at) {
		d = d.Reverse()
	}
	w := c.wakes[d]
	if w.at.IsZero() || w.at.After(t) {
		return manualWake{}, false
	}
	c.wakes[d] = manualWake{}
	c.now = w.at
	return w, true
}
