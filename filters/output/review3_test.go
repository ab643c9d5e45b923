package output

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The third review's output classes (issue 25): each test fails on the
// filters before their fix.

// A chunk the agent streams after a call's end, holding output the client
// was already shown from the end's rawOutput, is not shown again: codex-acp
// reports the whole output in rawOutput while its last chunk is still on the
// way, and the proxy completes the stream from rawOutput.
func TestALateChunkAlreadyInRawOutputIsNotShownTwice(t *testing.T) {
	for _, client := range []struct{ name, caps string }{{"plain", plainClient}, {"zed-like", zedClient}, {"delta", deltaClient}} {
		t.Run(client.name, func(t *testing.T) {
			h := newHarness(t, client.caps, codexAgent, &TerminalOutput{})
			h.run(fromAgent(termCallMsg("t1")), fromAgent(out("t1", "line 4\n")),
				fromAgent(codexEnd("t1", "completed", "line 4\nline 5\n", 0)),
				fromAgent(out("t1", "line 5\n")), after(time.Second))
			assert.Equal(t, "line 4\nline 5\n", outputOf(client.caps, seen(t, h.take())["t1"]))

			// A late chunk with more than rawOutput had shows only what is new.
			h.run(fromAgent(termCallMsg("t2")), fromAgent(out("t2", "a\n")),
				fromAgent(codexEnd("t2", "completed", "a\nb\n", 0)),
				fromAgent(out("t2", "b\nc\n")), after(time.Second))
			assert.Equal(t, "a\nb\nc\n", outputOf(client.caps, seen(t, h.take())["t2"]))
		})
	}
}

// The final update of a call the filter no longer remembers (evicted while
// it streamed, then forgotten among the ended calls) does not send its
// rawOutput again to a client with the extension, which shows what was
// streamed already: the filter cannot tell which part that is.
func TestAForgottenCallsEndDoesNotRepeatItsOutput(t *testing.T) {
	for _, client := range []struct{ name, caps string }{{"zed-like", zedClient}, {"delta", deltaClient}} {
		t.Run(client.name, func(t *testing.T) {
			h := newHarness(t, client.caps, codexAgent, &TerminalOutput{MaxBytes: 1000})
			h.run(fromAgent(termCallMsg("t0")), fromAgent(out("t0", "a\nb\n")))
			// 128 more calls streaming at once: t0 is retired.
			for i := 1; i <= 128; i++ {
				id := fmt.Sprintf("s%d", i)
				h.run(fromAgent(termCallMsg(id)), fromAgent(out(id, "x\n")))
			}
			// 300 calls that end: t0 is forgotten among the ended calls.
			for i := 1; i <= 300; i++ {
				id := fmt.Sprintf("t%d", i)
				h.run(fromAgent(termCallMsg(id)), fromAgent(out(id, "x\n")), fromAgent(codexEnd(id, "completed", "x\n", 0)))
			}
			h.run(fromAgent(codexEnd("t0", "completed", "a\nb\n", 0)))
			assert.Equal(t, "a\nb\n", seen(t, h.take())["t0"])
		})
	}
}

// outputOf is the output a client of caps shows in view: without codex's
// fence for a client without the extension.
func outputOf(caps, view string) string {
	if caps == plainClient {
		return unfenced(view)
	}
	return view
}
