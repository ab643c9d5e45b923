package proxy

import (
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
)

// Tap watches a connection at the edges of its filter chain: the lines read,
// what the chain wrote for them, the lines the proxy wrote on its own. The
// trace recorder (--record) and the figures of --stats are taps; the relay
// knows nothing else of them.
//
// A direction's calls come from its pump, one at a time; Added may come
// from the other pump or a timer meanwhile, so a tap that keeps state
// across directions guards it. A Passage and every slice are valid only
// during the call (the relay reuses them): a tap copies what it keeps.
type Tap interface {
	// Passed is called once per whole line read, after the chain has
	// written what it makes of it.
	Passed(p *Passage)
	// Added is called for a line the proxy wrote on its own in direction
	// d at t: timed, a coalescing filter's timer or the end of the input
	// released it; otherwise a filter wrote it while handling a line of
	// the other direction (an answer, held output it sends first).
	Added(d acp.Direction, t time.Time, line []byte, timed bool)
	// Long is called when a line too long to filter starts streaming
	// through direction d; it is given the line's pieces and its end.
	Long(d acp.Direction) LongLine
	// End is called when direction d's input has ended and its output has
	// been flushed. An error is logged: the tap's record is incomplete.
	End(d acp.Direction) error
}

// Passage is one whole line a connection read, and what it wrote for it in
// the same direction.
type Passage struct {
	Dir  acp.Direction
	Time time.Time // when it was read
	Line []byte    // as read, without its '\n'
	EOL  bool      // it ended in '\n' (false: the last line of a stream)
	// Valid says Line is one valid JSON object, as the filters' view found
	// it; false when nobody looked.
	Valid bool
	// Out is what was written for it, in order: nothing when a filter
	// dropped it; the line itself (Original) when it passed unchanged.
	Out []Sent
}

// Sent is one line written for a Passage.
type Sent struct {
	Line     []byte
	Original bool // the line as read, written with its own ending
}

// Changed reports whether what was written differs from what was read:
// changed, dropped or split.
func (p *Passage) Changed() bool { return len(p.Out) != 1 || !p.Out[0].Original }

// LongLine follows one line too long to filter as it streams through.
type LongLine interface {
	Piece(b []byte)
	// End is called once the line has ended at t, after its last piece;
	// eol says it ended in '\n'.
	End(t time.Time, eol bool)
}
