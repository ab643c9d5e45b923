package changes

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

const endTurn = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`

// tick runs the chain's Tick for the client at t and keeps what it sent.
func (s *session) tick(t time.Time) time.Time {
	s.t.Helper()
	next, err := s.chain.Tick(acp.AgentToClient, t, func(l filters.Line) error {
		s.sent = append(s.sent, chaintest.Sent{Dir: l.Dir, Raw: string(l.Raw), Original: l.Original})
		return nil
	})
	require.NoError(s.t, err)
	return next
}

// sleepy is a snapshot whose report takes a while, made on the scan's
// goroutine with nothing the test does in between.
type sleepy struct {
	Snapshot
	d time.Duration
}

func (s sleepy) Changes(ctx context.Context) Report { time.Sleep(s.d); return s.Snapshot.Changes(ctx) }

// Once a held end of turn is overdue, a report still being made is given
// up without reading what its scan writes (under -race: the scan finishes
// on its own goroutine, after the Tick).
func TestAReportGivenUpIsNotReadWhileItsScanFinishes(t *testing.T) {
	f := &Filter{Take: func(ctx context.Context, root string, lim Limits) Snapshot {
		return sleepy{Take(ctx, root, lim), 100 * time.Millisecond}
	}}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	s.agent(ended("c1", "completed", ""), endTurn)
	require.NotEqual(t, endTurn, s.sent[len(s.sent)-1].Raw, "the end of the turn waits for the report")
	s.tick(time.Unix(0, 0).Add(maxHold + time.Second))
	f.Close() // waits for the scan
	assert.Empty(t, s.added(), "the report was given up")
	assert.Equal(t, endTurn, s.sent[len(s.sent)-1].Raw, "the end of the turn went on")
}

// gatedTake has every report wait for gate.
func gatedTake(gate chan struct{}) func(context.Context, string, Limits) Snapshot {
	return func(ctx context.Context, root string, lim Limits) Snapshot { return gated{Take(ctx, root, lim), gate} }
}

// Lines held behind a report are the agent's lines as they came, byte for
// byte, whatever they are: a log line, bad UTF-8.
func TestLinesHeldBehindAReportLeaveAsTheyCame(t *testing.T) {
	gate := make(chan struct{})
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: gatedTake(gate)})
	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	held := []string{endTurn, "a log line on the agent's stdout", "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\xff\"}}"}
	s.agent(ended("c1", "completed", ""))
	s.agent(held...)
	close(gate)
	s.settle()
	require.Len(t, s.added(), 1)
	got := s.sent[len(s.sent)-len(held):]
	var want []chaintest.Sent
	for _, l := range held {
		want = append(want, chaintest.Sent{Dir: acp.AgentToClient, Raw: l, Original: true})
	}
	assert.Equal(t, want, got)
}

// While a report is being made, Tick asks to run again only when what
// waits stops waiting: the call's end after maxCallHold, then the end of
// the turn after maxHold; the report, once made, wakes the driver, which
// sends it on a follow-up before the end of the turn.
func TestAReportWakesTheDriverAndNothingPolls(t *testing.T) {
	gate := make(chan struct{})
	f := &Filter{Take: gatedTake(gate)}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	t0 := time.Unix(0, 0)
	s.agent(ended("c1", "completed", ""))
	assert.Equal(t, t0.Add(maxCallHold), s.tick(t0), "the call's end held: a wake when it goes alone")
	assert.Zero(t, s.tick(t0.Add(maxCallHold)), "the call's end gone, the report late: no wake asked for")
	assert.Equal(t, ended("c1", "completed", ""), s.sent[len(s.sent)-1].Raw, "the call's end went as it came")
	s.agent(endTurn)
	assert.Equal(t, t0.Add(maxHold), s.tick(t0.Add(maxCallHold)), "the end of the turn held: a wake when it is overdue")

	sent := make(chan string, 4)
	dr := filters.NewDriver(s.chain, filters.NewTimerClock(nil), func(l filters.Line) error { sent <- string(l.Raw); return nil })
	defer dr.Stop(acp.AgentToClient)
	close(gate)
	for _, want := range []string{`"toolCallId":"c1","title":"cp a b","kind":"execute","status":"completed","content"`, "end_turn"} {
		select {
		case l := <-sent:
			assert.Contains(t, l, want)
		case <-time.After(20 * time.Second):
			t.Fatalf("nothing sent: %q awaited", want)
		}
	}
}

// counting counts the scans running at once and made in all.
type counting struct {
	mu              sync.Mutex
	running, most   int
	takes, changes_ int
	gate            chan struct{}
}

func (c *counting) begin(n *int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running++
	*n++
	c.most = max(c.most, c.running)
}

func (c *counting) end() { c.mu.Lock(); c.running--; c.mu.Unlock() }

func (c *counting) take(ctx context.Context, root string, lim Limits) Snapshot {
	c.begin(&c.takes)
	defer c.end()
	return countedSnap{Take(ctx, root, lim), c}
}

type countedSnap struct {
	Snapshot
	c *counting
}

func (s countedSnap) Changes(ctx context.Context) Report {
	s.c.begin(&s.c.changes_)
	defer s.c.end()
	<-s.c.gate
	return s.Snapshot.Changes(ctx)
}

// Thirty quick commands of a session: one scan runs at a time, and the
// reports that compare with the same before-state come from one scan.
func TestQuickCommandsShareOneScannerPerSession(t *testing.T) {
	c := &counting{gate: make(chan struct{})}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: c.take})
	for i := range 30 {
		id := "c" + string(rune('A'+i))
		s.agent(started(id, "echo"))
		s.run("echo " + id + " > " + id)
		s.agent(ended(id, "completed", ""))
	}
	close(c.gate)
	s.settle()
	assert.Equal(t, 1, c.most, "scans of one session at once")
	assert.LessOrEqual(t, c.changes_, 3, "reports made (one scan for those that wait together)")
	assert.LessOrEqual(t, c.takes, 4, "before-states taken (one waiting is taken once for every ask)")
	require.NotEmpty(t, s.added())
	assert.Contains(t, s.added()[0], "30 files")
}

// A rest still being taken that no call holds is stopped when a newer one
// is asked for.
func TestASupersededTakeIsStopped(t *testing.T) {
	var stopped atomic.Int32
	block := make(chan struct{})
	f := &Filter{}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
	first := true
	f.Take = func(ctx context.Context, root string, lim Limits) Snapshot {
		if first {
			first = false
			select {
			case <-ctx.Done():
				stopped.Add(1)
			case <-block:
			}
		}
		return Take(ctx, root, lim)
	}
	s.agent(started("c1", "true"), ended("c1", "completed", "")) // its rest starts being taken, and blocks
	waitFor(t, func() bool { return f.rests.m["S"].snap.started.Load() })
	chaintestPrompt(s)
	waitFor(t, func() bool { return stopped.Load() == 1 })
	close(block)
	f.Close()
}

func chaintestPrompt(s *session) {
	chaintest.Run(s.t, s.chain, acp.ClientToAgent, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("never came")
		}
		time.Sleep(time.Millisecond)
	}
}

// countedOpen counts the snapshots taken and not yet closed.
type countedOpen struct {
	Snapshot
	open *atomic.Int32
}

func (c countedOpen) Close() { c.open.Add(-1); c.Snapshot.Close() }

// Close lets go of every before-state: the sessions' rests, the calls
// still open, the reports being made.
func TestCloseLetsGoOfEveryBeforeState(t *testing.T) {
	var open atomic.Int32
	gate := make(chan struct{})
	f := &Filter{Take: func(ctx context.Context, root string, lim Limits) Snapshot {
		open.Add(1)
		return countedOpen{gated{Take(ctx, root, lim), gate}, &open}
	}}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
	f.rests.mu.Lock()
	f.rests.evict("S") // the next call takes a before-state of its own
	f.rests.mu.Unlock()
	s.agent(started("open", "sleep 100"), started("done", "true"), ended("done", "completed", ""))
	waitFor(t, func() bool { return open.Load() == 2 }) // each call's own, taken
	close(gate)
	f.Close()
	assert.Zero(t, open.Load(), "snapshots not closed")
}

// An agent's message chunk skips the chain (filters.Chain.Skips) while the
// filter holds nothing; once a call's end is held for its report, or the
// end of a turn for the reports it awaits, every line after it queues
// behind it: none skips, and they leave after it, in the order they came.
func TestNoLineSkipsTheChainWhileLinesAreHeld(t *testing.T) {
	gate := make(chan struct{})
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: gatedTake(gate)})
	chunk := update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`)
	output := update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"a \"status\": line\n"}}}`)
	skips := func() bool { return s.chain.Skips(acp.AgentToClient, []byte(chunk)) }
	outputSkips := func() bool { return s.chain.Skips(acp.AgentToClient, []byte(output)) }
	require.True(t, skips(), "nothing held: a chunk skips")

	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	require.True(t, skips(), "a command running: nothing held")
	require.True(t, outputSkips(), "a command's output streaming: no call starts, ends or asks in it")
	for _, l := range []string{started("c2", "true"), ended("c2", "completed", "")} {
		assert.False(t, s.chain.Skips(acp.AgentToClient, []byte(l)), "a call's start or end does not skip: %s", l)
	}
	s.agent(ended("c1", "completed", ""))
	assert.False(t, skips(), "the call's end held: a chunk queues behind it")
	assert.False(t, outputSkips(), "the call's end held: output queues behind it")
	s.agent(chunk)
	assert.Equal(t, started("c1", "cp a b"), s.sent[len(s.sent)-1].Raw, "the chunk is held behind the call's end")
	t0 := time.Unix(0, 0)
	s.tick(t0.Add(maxCallHold)) // the call's end goes alone, the report late
	assert.Equal(t, chunk, s.sent[len(s.sent)-1].Raw, "the chunk left after the call's end")
	require.True(t, skips(), "nothing held: the late report holds no line")

	s.agent(endTurn)
	assert.False(t, skips(), "the end of the turn held for the late report: a chunk queues behind it")
	s.agent(chunk)
	close(gate)
	s.settle()
	require.Len(t, s.added(), 1)
	n := len(s.sent)
	assert.Equal(t, []string{endTurn, chunk}, []string{s.sent[n-2].Raw, s.sent[n-1].Raw}, "the end of the turn, then the chunk")
	assert.True(t, skips(), "nothing held again")
}
