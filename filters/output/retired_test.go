package output

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndedCallsStayBounded: calls that ended are kept so that their later
// output is appended to what a client without the extension shows, but
// never more than 128 of them, nor more than MaxBytes of output together.
// Past that, the oldest is forgotten, and its later output is shown from
// that output on, as docs/terminal-output.md says.
func TestEndedCallsStayBounded(t *testing.T) {
	const maxBytes = 1000
	f := &TerminalOutput{MaxBytes: maxBytes}
	h := newHarness(t, plainClient, codexAgent, f)
	output := func(i int) string { return fmt.Sprintf("call %03d says hello\n", i) } // 20 bytes
	for i := range 300 {
		id := fmt.Sprintf("t%d", i)
		h.run(fromAgent(termCallMsg(id)), fromAgent(out(id, output(i))), fromAgent(codexEnd(id, "completed", output(i), 0)))
		assert.LessOrEqual(t, f.ended.calls.Len(), 128)
		assert.LessOrEqual(t, f.ended.bytes, int64(maxBytes))
		assert.Zero(t, f.calls.Len(), "an ended call is no longer followed")
	}
	require.Positive(t, f.ended.calls.Len())
	h.take()

	// The latest calls are kept: a late chunk is appended.
	h.run(fromAgent(out("t299", "late\n")), after(time.Second))
	assert.Equal(t, output(299)+"late\n", unfenced(seen(t, h.take())["t299"]))
	// The first were forgotten: a late chunk is shown on its own.
	h.run(fromAgent(out("t0", "late\n")), after(time.Second))
	assert.Equal(t, "late\n", unfenced(seen(t, h.take())["t0"]))
}

// TestEvictedCallsStayBounded: more calls streaming at once than a filter
// follows (128): the oldest is retired, whole, and the filter follows at
// most 128.
func TestEvictedCallsStayBounded(t *testing.T) {
	f := &TerminalOutput{}
	h := newHarness(t, plainClient, codexAgent, f)
	for i := range 200 {
		id := fmt.Sprintf("t%d", i)
		h.run(fromAgent(termCallMsg(id)), fromAgent(out(id, "a\n")), fromAgent(out(id, "b\n")))
		assert.LessOrEqual(t, f.calls.Len(), 128)
	}
	view := seen(t, h.take())
	assert.Equal(t, "a\nb\n", unfenced(view["t0"]), "the evicted call was sent all its output")
	h.run(fromAgent(out("t0", "c\n")), after(time.Second))
	assert.Equal(t, "a\nb\nc\n", unfenced(seen(t, h.take())["t0"]), "and its later output is appended")
}

// unfenced is codex's fenced text without its fence (shFence).
func unfenced(s string) string {
	if len(s) < len("```sh\n\n```\n") {
		return s
	}
	return s[len("```sh\n"):len(s)-len("\n```\n")] + "\n"
}
