package acp

// Count is a number of lines and their bytes on the wire, each line's '\n'
// included: the one counter that --stats, replay --summary, the view and
// the filters' figures share.
type Count struct {
	Messages int64 `json:"messages"`
	Bytes    int64 `json:"bytes"`
}

// Line counts one line of n bytes, not counting its '\n'.
func (c *Count) Line(n int) { c.Messages++; c.Bytes += int64(n) + 1 }

// Plus adds o to c.
func (c *Count) Plus(o Count) { c.Messages += o.Messages; c.Bytes += o.Bytes }
