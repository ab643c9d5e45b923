package filters

import (
	"sync/atomic"

	"github.com/acp-proxy/acp-proxy/acp"
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

// count is what c counted, as the lines are on the wire: each with its '\n'.
func (c *counter) count() acp.Count {
	n := c.messages.Load()
	return acp.Count{Messages: n, Bytes: c.bytes.Load() + n}
}

// add counts a message of n bytes.
func (c *counter) add(n int) { c.addRun(1, n) }

// addRun counts n messages of bytes bytes in all.
func (c *counter) addRun(n, bytes int) {
	c.messages.Add(int64(n))
	c.bytes.Add(int64(bytes))
}

// Counted is implemented by filters that count events of their own for --stats (shell-to-patch:
// edits verified and taken back).
type Counted interface {
	Counts() map[string]int64
}

// Figures are one filter's figures.
type Figures struct {
	Name string
	Flag string // the flag that turned it on (see Explained)
	// Notes say per direction what it changed, or why nothing (see
	// Explained); "" when it has nothing to say.
	Notes [2]string
	// In and Out are what it took in and gave out, per direction.
	In, Out [2]acp.Count
	// Counts are the filter's own counts that are not zero (see Counted); nil: none.
	Counts map[string]int64
}

// Stats reports each filter's figures, in chain order.
func (c *Chain) Stats() []Figures {
	if c == nil {
		return nil
	}
	out := make([]Figures, len(c.filters))
	for i, f := range c.filters {
		r := Figures{Name: f.Name(), Counts: ownCounts(f)}
		for d := range 2 {
			r.In[d], r.Out[d] = c.counts[i].In[d].count(), c.counts[i].Out[d].count()
			skipped := c.skipped[d].count()
			r.In[d].Plus(skipped)
			r.Out[d].Plus(skipped)
		}
		r.Flag, r.Notes = explain(f, c.caps, [2]bool{r.In[0] != r.Out[0], r.In[1] != r.Out[1]})
		out[i] = r
	}
	return out
}

// ownCounts are f's own counts that are not zero (see Counted); nil: none.
func ownCounts(f Filter) map[string]int64 {
	counted, ok := f.(Counted)
	if !ok {
		return nil
	}
	var counts map[string]int64
	for k, v := range counted.Counts() {
		if v != 0 {
			if counts == nil {
				counts = map[string]int64{}
			}
			counts[k] = v
		}
	}
	return counts
}
