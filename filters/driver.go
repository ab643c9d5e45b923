package filters

import (
	"sync"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Clock is the time a Driver runs its chain on, and what wakes it when a
// coalescing filter wants to run: the wall clock and its timers for the
// relay (TimerClock), the records' times for a replay and a test's own time
// (ManualClock).
type Clock interface {
	Now() time.Time
	// Wake has wake called at t, in place of what was asked before for
	// direction d; the zero t asks for nothing.
	Wake(d acp.Direction, t time.Time, wake func() error)
}

// Driver runs a chain on a clock, the one way the relay, a replay and the
// tests run filters: each line is processed (Process) at its time, then
// the coalescing filters of its direction emit what is due (Tick), and the
// clock wakes the driver when they next want to run.
type Driver struct {
	chain *Chain
	clock Clock
	// released takes what the filters emit on their own: when due, and
	// when drained.
	released Sink
	wakes    [2]func() error // Tick of each direction, for the clock
	mu       [2]sync.Mutex   // orders each direction's Ticks and wakes
	stopped  [2]bool
}

// NewDriver returns a driver of chain (nil: no filters) on clock; released
// takes what the filters emit outside of processing a line.
func NewDriver(chain *Chain, clock Clock, released Sink) *Driver {
	dr := &Driver{chain: chain, clock: clock, released: released}
	for d := range dr.wakes {
		dr.wakes[d] = func() error { return dr.Tick(acp.Direction(d)) }
	}
	if chain != nil {
		for _, f := range chain.filters {
			if w, ok := f.(Woken); ok {
				w.SetWake(dr.wakeSoon)
			}
		}
	}
	return dr
}

// wakeSoon has the clock run direction d's Tick now, in place of the wake
// asked before (the Tick asks again for what it still holds); from any
// goroutine.
func (dr *Driver) wakeSoon(d acp.Direction) {
	dr.mu[d].Lock()
	defer dr.mu[d].Unlock()
	if !dr.stopped[d] {
		dr.clock.Wake(d, dr.clock.Now(), dr.wakes[d])
	}
}

// Close closes the chain's filters: the connection has ended.
func (dr *Driver) Close() { dr.chain.Close() }

// Process runs m, read at m.Time, through the chain to sink. The caller
// then calls Tick for m's direction, after what it does with the line.
func (dr *Driver) Process(m *Message, sink Sink) error { return dr.chain.Process(m, sink) }

// Tick lets the coalescing filters of direction d emit what is due now,
// and has the clock wake the driver when they next want to run.
func (dr *Driver) Tick(d acp.Direction) error {
	if dr.chain.Len() == 0 {
		return nil
	}
	// A timer's Tick and the pump's may race: under the lock, the wake
	// asked for last is for what the chain holds after the last Tick.
	dr.mu[d].Lock()
	defer dr.mu[d].Unlock()
	next, err := dr.chain.Tick(d, dr.clock.Now(), dr.released)
	if err != nil {
		return err
	}
	if !dr.stopped[d] {
		dr.clock.Wake(d, next, dr.wakes[d])
	}
	return nil
}

// Drain has the filters emit everything they hold for direction d now:
// its input ended, or a line too long to filter is about to pass them by.
func (dr *Driver) Drain(d acp.Direction) error {
	return dr.chain.Drain(d, dr.clock.Now(), dr.released)
}

// Stop ends the wakes of direction d, whose input ended; Drain then emits
// what is still held.
func (dr *Driver) Stop(d acp.Direction) {
	dr.mu[d].Lock()
	defer dr.mu[d].Unlock()
	dr.stopped[d] = true
	dr.clock.Wake(d, time.Time{}, nil)
}
