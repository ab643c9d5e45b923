package filters

import (
	"sync/atomic"
)

// filterCounts is what one filter took in and gave out, per direction:
// the chain counts each filter's messages and their bytes (without '\n').
type filterCounts struct {
	In, Out [2]counter
}

// counter is a number of messages and their bytes, read while the chain runs.
type counter struct {
	messages, bytes atomic.Int64
}

// add counts a message of n bytes.
func (c *counter) add(n int) {
	c.messages.Add(1)
	c.bytes.Add(int64(n))
}

// Counted is implemented by filters that count events of their own for --stats (shell-to-patch:
// edits verified and taken back).
type Counted interface {
	Counts() map[string]int64
}

// FilterReport is one filter's figures.
type FilterReport struct {
	Name string
	Flag string // the flag that turned it on (see Explained)
	// Notes say per direction what it changed, or why nothing (see
	// Explained); "" when it has nothing to say.
	Notes [2]string
	// In and Out are [direction]{messages, bytes}.
	In, Out [2][2]int64
	// Counts are the filter's own counts that are not zero (see Counted); nil: none.
	Counts map[string]int64
}

// Stats reports each filter's figures, in chain order.
func (c *Chain) Stats() []FilterReport {
	if c == nil {
		return nil
	}
	out := make([]FilterReport, len(c.filters))
	for i, f := range c.filters {
		r := FilterReport{Name: f.Name()}
		if counted, ok := f.(Counted); ok {
			for k, v := range counted.Counts() {
				if v != 0 {
					if r.Counts == nil {
						r.Counts = map[string]int64{}
					}
					r.Counts[k] = v
				}
			}
		}
		for d := range 2 {
			s := &c.counts[i]
			r.In[d] = [2]int64{s.In[d].messages.Load(), s.In[d].bytes.Load()}
			r.Out[d] = [2]int64{s.Out[d].messages.Load(), s.Out[d].bytes.Load()}
		}
		r.Flag, r.Notes = explain(f, c.caps, [2]bool{r.In[0] != r.Out[0], r.In[1] != r.Out[1]})
		out[i] = r
	}
	return out
}
