package proxy

import (
	"bytes"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// passChunks adds the text chunks (acp.UpdateHead.TextChunk) that come
// next in what f has read to d's run of skipped lines, all at once, when
// no filter would act on a chunk (filters.Chain.SkipsChunks): most of what
// an agent sends is text, and this way a chunk costs the relay the search
// for its end and a comparison of its head with the one before it, not a
// pass through the chain. It reports whether it passed any.
func (c *Conn) passChunks(d acp.Direction, f *framer, now time.Time) bool {
	if d != acp.AgentToClient || c.chunksHeld[d] {
		return false
	}
	win := f.window()
	h, ok := acp.ReadUpdateHead(win)
	if !ok || !h.TextChunk() {
		return false
	}
	if c.runs[d] && !c.r.Chain.SkipsChunks(d) {
		c.chunksHeld[d] = true
		return false
	}
	r := c.joinRun(d, win, now)
	head := win[:h.Len]
	n, end, size := 0, 0, 0
	for {
		rest := win[end:]
		if !bytes.HasPrefix(rest, head) {
			// Another session's chunk, or another kind: read its head.
			h, ok := acp.ReadUpdateHead(rest)
			if !ok || !h.TextChunk() {
				break
			}
			head = rest[:h.Len]
		}
		i := bytes.IndexByte(rest[len(head):], '\n')
		if i < 0 {
			break // its end is not read yet
		}
		i += len(head)
		if len(c.taps) > 0 {
			r.lines = append(r.lines, rest[:i])
		}
		n, end, size = n+1, end+i+1, size+i
	}
	if n == 0 {
		return false
	}
	r.extend(win[:end])
	f.discard(end)
	if c.runs[d] {
		c.r.Chain.Skipped(d, n, size)
	}
	return true
}
