package trace

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// heldStream is an agent's output of which a Holding filter holds three
// lines (a log line with bad UTF-8, one with bad UTF-8 in a string, the
// last line without its '\n') and sends them on later.
const heldStream = "{\"method\":\"a\"}\na log line \xff\n{\"method\":\"hold\",\"s\":\"\xff\"}\n{\"method\":\"release\"}\n{\"method\":\"hold\",\"last\":1}"

// endClock is a reader whose clock reads 1 s after start until the
// reader ends (the last line is read then), 2 s after that.
type endClock struct {
	r     *strings.Reader
	start time.Time
	ended bool
	after int // clock readings since it ended
}

func (e *endClock) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	e.ended = e.ended || err != nil
	return n, err
}

func (e *endClock) now() time.Time {
	if e.ended {
		if e.after++; e.after > 1 {
			return e.start.Add(2 * time.Second)
		}
	}
	return e.start.Add(time.Second)
}

// holdingChain is a chain whose Holding filter holds lines and sends them
// on later.
func holdingChain() *filters.Chain {
	return filters.NewChain(capabilities.New(), &chaintest.Holding{})
}

// recordHolding relays stream from the agent through a Holding filter, and
// returns the trace and what the client got.
func recordHolding(t *testing.T, stream string) (recorded, got []byte) {
	in := &endClock{r: strings.NewReader(stream), start: time.Unix(1000, 0)}
	var trace bytes.Buffer
	r := &proxy.Relay{
		Chain: holdingChain(),
		Now:   in.now,
		Taps:  []proxy.Tap{NewRecorder(&trace, in.start)},
	}
	got = relayOnce(t, r, acp.AgentToClient, in)
	return trace.Bytes(), got
}

// records reads every record of trace.
func records(t *testing.T, trace []byte) []Record {
	t.Helper()
	var recs []Record
	for rec, err := range NewReader(bytes.NewReader(trace)).All() {
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	return recs
}

// replayed is what a replay of a trace delivered: the lines, each with its
// '\n' when it had one, and the source of each.
type replayed struct {
	lines string
	srcs  []int
}

// replayHeld replays recorded through chain (nil: no filters) into a
// --summary, checking that no delivered line is a timer's, and returns what
// was delivered and the summary.
func replayHeld(t *testing.T, recorded []byte, chain *filters.Chain) (replayed, *Summary) {
	t.Helper()
	var out bytes.Buffer
	sum := NewSummary(chain)
	require.NoError(t, Replay(t.Context(), NewReader(bytes.NewReader(recorded)), func(int) Connection {
		return Connection{Chain: chain, Sinks: []Sink{NewDelivered(&out, true), sum}}
	}))
	var lines bytes.Buffer
	var srcs []int
	for rec, err := range NewReader(&out).All() {
		require.NoError(t, err)
		assert.False(t, rec.Timer)
		srcs = append(srcs, rec.Src)
		lines.Write(rec.Line)
		if rec.EOL {
			lines.WriteByte('\n')
		}
	}
	return replayed{lines.String(), srcs}, sum
}

// sentCount is the count of the lines of got, the last one with or without
// its '\n'.
func sentCount(got []byte) acp.Count {
	var sent acp.Count
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(got), "\n"), "\n") {
		sent.Line(len(strings.TrimSuffix(l, "\n")))
	}
	return sent
}

// A line a filter holds is recorded as the agent's line as it came, marked
// held, and again, byte for byte, when it leaves: the time it left, the
// time it came; not as a line the proxy added.
func TestAHeldLineIsRecordedAsItCameAndWhenItLeft(t *testing.T) {
	recorded, got := recordHolding(t, heldStream)
	assert.Equal(t, heldStream, string(got), "each line as it came, in order")
	want := "{\"t\":1.000000,\"dir\":\"agent->client\",\"msg\":{\"method\":\"a\"}}\n" +
		"{\"t\":1.000000,\"dir\":\"agent->client\",\"b64\":\"YSBsb2cgbGluZSD/\",\"held\":true}\n" +
		"{\"t\":1.000000,\"dir\":\"agent->client\",\"msg\":{\"method\":\"hold\",\"s\":\"\xff\"},\"held\":true}\n" +
		"{\"t\":1.000000,\"dir\":\"agent->client\",\"b64\":\"YSBsb2cgbGluZSD/\",\"heldSince\":1.000000}\n" +
		"{\"t\":1.000000,\"dir\":\"agent->client\",\"msg\":{\"method\":\"hold\",\"s\":\"\xff\"},\"heldSince\":1.000000}\n" +
		`{"t":1.000000,"dir":"agent->client","msg":{"method":"release"}}
{"t":1.000000,"dir":"agent->client","msg":{"method":"hold","last":1},"eol":false,"held":true}
{"t":2.000000,"dir":"agent->client","msg":{"method":"hold","last":1},"eol":false,"heldSince":1.000000}
`
	assert.Equal(t, want, string(recorded))

	recs := records(t, recorded)
	require.Len(t, recs, 8)
	assert.True(t, recs[1].Held && !recs[1].Released && !recs[1].HasOut)
	assert.True(t, recs[7].Released && !recs[7].EOL)
	assert.Equal(t, time.Second, recs[7].HeldSince)
	assert.Equal(t, 2*time.Second, recs[7].T)
	assert.Equal(t, recs[1].Line, recs[3].Line, "the bytes kept exactly")
}

// A replay of that trace sends each line once: through no filters as it
// came, through the filter that held it as the recording proxy did, each
// held line the received line itself (its own source, not a timer's), and
// --summary counts it passed, not added.
func TestAReplayPassesAHeldLineOnceAsItCame(t *testing.T) {
	recorded, got := recordHolding(t, heldStream)
	for _, chain := range []*filters.Chain{nil, holdingChain()} {
		delivered, sum := replayHeld(t, recorded, chain)
		if chain == nil {
			assert.Equal(t, heldStream, delivered.lines)
			continue
		}
		assert.Equal(t, string(got), delivered.lines)
		assert.Equal(t, []int{0, 1, 2, 3, 4}, delivered.srcs, "each held line is its own source")
		dir := sum.Report().Directions[acp.AgentToClient]
		assert.Equal(t, dir.Before, dir.After, "held lines pass unchanged")
		assert.EqualValues(t, 5, dir.After.Messages)
	}
}

// A summary of the recording counts what the recording proxy sent: each
// held line once, when it left.
func TestASummaryCountsAHeldLineSentOnce(t *testing.T) {
	recorded, got := recordHolding(t, heldStream)
	sum := NewSummary(nil)
	require.NoError(t, replayInto(nil, bytes.NewReader(recorded), nil, sum))
	assert.Equal(t, sentCount(got), sum.dirs[acp.AgentToClient].sent)
}

// Redacting keeps the marks of held lines.
func TestRedactKeepsHeldLines(t *testing.T) {
	recorded, _ := recordHolding(t, heldStream)
	var red bytes.Buffer
	require.NoError(t, Redact(NewReader(bytes.NewReader(recorded)), &red))
	assert.Equal(t, 3, strings.Count(red.String(), `"held":true`))
	assert.Equal(t, 3, strings.Count(red.String(), `"heldSince":1.000000`))
}
