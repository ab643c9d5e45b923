package proxy

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// relayOnce pumps in through a connection in direction d and returns what
// the receiving side got.
func relayOnce(t testing.TB, r *Relay, d acp.Direction, in io.Reader) []byte {
	t.Helper()
	var toAgent, toClient bytes.Buffer
	c := r.Open(&toAgent, &toClient)
	require.NoError(t, c.Pump(d, in))
	if d == acp.ClientToAgent {
		return toAgent.Bytes()
	}
	return toClient.Bytes()
}

// viewingFilter parses every message's view and forwards it: the relay's
// filtered path must be as transparent as its unfiltered one.
var viewingFilter = filters.Func{FilterName: "view", Fn: func(m *filters.Message, out filters.Emitter) error {
	_, _, _ = m.Method(), m.ID(), m.UpdateKind()
	return nil
}}

func corpus(t testing.TB) []byte {
	b, err := os.ReadFile("../testdata/transparency/corpus.jsonl")
	require.NoError(t, err)
	return b
}

func TestRelayIsByteExactWithAndWithoutFilters(t *testing.T) {
	in := corpus(t)
	relays := map[string]*Relay{
		"no chain":       {},
		"viewing filter": {Chain: filters.NewChain(capabilities.New(), viewingFilter)},
		"tiny max line":  {Chain: filters.NewChain(capabilities.New(), viewingFilter), MaxFilterLine: 100},
	}
	for name, r := range relays {
		for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
			got := relayOnce(t, r, d, iotest.OneByteReader(bytes.NewReader(in)))
			assert.Equal(t, string(in), string(got), "%s, %s", name, d)
		}
	}
}

// FuzzFramer feeds random bytes in random read sizes: whatever arrives
// leaves, exactly, with or without filters and long-line streaming, and
// what a filter keeps of a line holds while the relay reads on.
func FuzzFramer(f *testing.F) {
	f.Add(corpus(f), uint64(1), uint16(0))
	f.Add([]byte("a\nb\r\n\n{\"x\":1}"), uint64(7), uint16(3))
	f.Add([]byte(strings.Repeat("x", 5000)+"\n"+strings.Repeat("y", 70000)), uint64(3), uint16(64))
	f.Add([]byte(strings.Repeat("x", 70000)+"\n"+strings.Repeat("y", 70000)+"\nz\n"), uint64(2), uint16(0))
	f.Add([]byte(strings.Repeat("x", 70000)+"\n"+strings.Repeat("y", 70000)+"\nz"), uint64(5), uint16(100))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, maxLine uint16) {
		r := &Relay{Chain: filters.NewChain(capabilities.New(), viewingFilter), MaxFilterLine: int(maxLine)}
		switch seed % 3 {
		case 0:
			r.Chain = nil
		case 1: // a filter keeps a part of each line past it, and checks it holds
			k := &keeper{t: t, kept: map[string]filters.Kept{}, want: map[string]string{}}
			r.Chain = filters.NewChain(capabilities.New(), viewingFilter, k.filter())
		}
		src := &choppyReader{b: in, rng: rand.New(rand.NewPCG(seed, 1)), max: 100000}
		got := relayOnce(t, r, acp.AgentToClient, src)
		require.Equal(t, string(in), string(got), "relayed unchanged")
	})
}

// choppyReader returns its bytes in reads of random sizes, up to max.
type choppyReader struct {
	b   []byte
	rng *rand.Rand
	max int
}

func (c *choppyReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.rng.IntN(c.max))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// rewritingFilter drops "drop" lines, writes "dup" lines twice, answers
// "ans" lines to the other side too, and forwards everything as it came.
var rewritingFilter = filters.Func{FilterName: "t", Fn: func(m *filters.Message, out filters.Emitter) error {
	switch m.Method() {
	case "drop":
		return filters.Drop
	case "dup":
		if err := out.Emit(m.Dir, m.Raw); err != nil {
			return err
		}
		return out.Emit(m.Dir, []byte(`{"method":"dup","copy":true}`))
	case "ans":
		if err := out.Emit(m.Dir.Reverse(), []byte(`{"id":1,"result":{}}`)); err != nil {
			return err
		}
	}
	return nil // forwarded as it came
}}

func TestFiltersMayReplaceDropAndAddButNeverReorder(t *testing.T) {
	f := rewritingFilter
	in := "{\"method\":\"a\"}\n{\"method\":\"drop\"}\n{\"method\":\"dup\"}\n{\"method\":\"ans\"}\n{\"id\":9,\"result\":null}\n"
	var toAgent, toClient bytes.Buffer
	r := &Relay{Chain: filters.NewChain(capabilities.New(), f)}
	c := r.Open(&toAgent, &toClient)
	require.NoError(t, c.Pump(acp.ClientToAgent, strings.NewReader(in)))
	assert.Equal(t, "{\"method\":\"a\"}\n{\"method\":\"dup\"}\n{\"method\":\"dup\",\"copy\":true}\n{\"method\":\"ans\"}\n{\"id\":9,\"result\":null}\n", toAgent.String())
	assert.Equal(t, "{\"id\":1,\"result\":{}}\n", toClient.String())
}

// holdingFilter holds every "chunk" notification until its timer is due or
// another message passes: the shape of a coalescing filter. Each direction
// has its own, as the chain runs the two directions concurrently.
type holdingFilter struct {
	held [2][][]byte
	due  [2]time.Time
}

func (h *holdingFilter) Name() string { return "hold" }

func (h *holdingFilter) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Method() == "chunk" {
		if h.held[m.Dir] == nil {
			h.due[m.Dir] = m.Time.Add(50 * time.Millisecond)
		}
		h.held[m.Dir] = append(h.held[m.Dir], append([]byte(nil), m.Raw...))
		return filters.Drop
	}
	h.Drain(m.Dir, out)
	return out.Emit(m.Dir, m.Raw)
}

func (h *holdingFilter) Tick(d acp.Direction, now time.Time, out filters.Emitter) time.Time {
	if h.held[d] == nil {
		return time.Time{}
	}
	if now.Before(h.due[d]) {
		return h.due[d]
	}
	h.Drain(d, out)
	return time.Time{}
}

func (h *holdingFilter) Drain(d acp.Direction, out filters.Emitter) {
	for _, b := range h.held[d] {
		_ = out.Emit(d, b)
	}
	h.held[d] = nil
}

func TestHeldOutputLeavesBeforeTheNextMessageOnTimeAndAtEOF(t *testing.T) {
	pr, pw := io.Pipe()
	var toClient syncBuffer
	r := &Relay{Chain: filters.NewChain(capabilities.New(), &holdingFilter{})}
	c := r.Open(io.Discard, &toClient)
	done := make(chan error, 1)
	go func() { done <- c.Pump(acp.AgentToClient, pr) }()

	io.WriteString(pw, "{\"method\":\"chunk\",\"n\":1}\n{\"method\":\"chunk\",\"n\":2}\n{\"id\":1,\"result\":{}}\n")
	require.Eventually(t, func() bool { return strings.Count(toClient.String(), "\n") == 3 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, "{\"method\":\"chunk\",\"n\":1}\n{\"method\":\"chunk\",\"n\":2}\n{\"id\":1,\"result\":{}}\n", toClient.String(),
		"a response never overtakes what was held before it")

	io.WriteString(pw, "{\"method\":\"chunk\",\"n\":3}\n")
	require.Eventually(t, func() bool { return strings.Count(toClient.String(), "\n") == 4 }, 5*time.Second, time.Millisecond,
		"the timer releases held output while the agent is quiet")

	io.WriteString(pw, "{\"method\":\"chunk\",\"n\":4}\n")
	pw.Close()
	require.NoError(t, <-done)
	assert.True(t, strings.HasSuffix(toClient.String(), "{\"method\":\"chunk\",\"n\":4}\n"), "EOF drains what is held")
}

// syncBuffer is a bytes.Buffer safe for a writer and a polling reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// closingFilter counts its Close calls.
type closingFilter struct {
	filters.Func
	closed atomic.Int32
}

func (c *closingFilter) Close() { c.closed.Add(1) }

// A filter that holds what must be let go of (goroutines, open files) is
// closed once, when both directions of its connection have ended.
func TestAConnectionClosesItsFiltersWhenBothDirectionsEnd(t *testing.T) {
	f := &closingFilter{Func: viewingFilter}
	r := &Relay{Chain: filters.NewChain(capabilities.New(), f)}
	c := r.Open(io.Discard, io.Discard)
	require.NoError(t, c.Pump(acp.ClientToAgent, strings.NewReader("{\"id\":1,\"method\":\"x\"}\n")))
	assert.Zero(t, f.closed.Load(), "one direction ended: the other may still need the filter")
	require.NoError(t, c.Pump(acp.AgentToClient, strings.NewReader("{\"id\":1,\"result\":{}}\n")))
	assert.Equal(t, int32(1), f.closed.Load())
}
