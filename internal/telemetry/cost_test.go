package telemetry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

func TestUpdateHead(t *testing.T) {
	const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":`
	cases := []struct {
		says, line string
		ok, tool   bool
		outputOf   string // outputOnly's call id; "" when not output alone
	}{
		{"a message chunk", head + `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`, true, false, ""},
		{"a plan", head + `{"sessionUpdate":"plan","entries":[]}}}`, true, false, ""},
		{"a tool call", head + `{"sessionUpdate":"tool_call","toolCallId":"c1","status":"pending"}}}`, true, true, ""},
		{"codex-acp's streamed output", head + `{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"a\"b\\"}}}}}`, true, true, "c1"},
		{"claude-agent-acp's output, _meta first", head + `{"_meta":{"claudeCode":{"toolResponse":{"stdout":"x"}}},"toolCallId":"c2","sessionUpdate":"tool_call_update"}}}`, true, true, "c2"},
		{"output in content", head + `{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"content","content":{"type":"text","text":"x"}}]}}}`, true, true, "c1"},
		{"an exit is not output alone", head + `{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_exit":{"terminal_id":"c1","exit_code":0}}}}}`, true, true, ""},
		{"a status is not output alone", head + `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}`, true, true, ""},
		{"sessionId after update: read whole", `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk"},"sessionId":"s1"}}`, false, false, ""},
		{"a response: read whole", `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`, false, false, ""},
		{"an escaped session id: read whole", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s\"1","update":{"sessionUpdate":"plan"}}}`, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.says, func(t *testing.T) {
			h, ok := acp.ReadUpdateHead([]byte(tc.line))
			assert.Equal(t, tc.ok, ok)
			if !ok {
				return
			}
			assert.Equal(t, "s1", string(h.SessionID))
			assert.Equal(t, tc.tool, h.ToolCall())
			id, only := outputOnly([]byte(tc.line), h.Update)
			assert.Equal(t, tc.outputOf != "", only)
			assert.Equal(t, tc.outputOf, id)
			// What a truncated or damaged line says is never a panic.
			for n := range len(tc.line) {
				for _, b := range [][]byte{[]byte(tc.line[:n]), []byte(tc.line[:n] + `"}]`)} {
					if h, ok := acp.ReadUpdateHead(b); ok && h.ToolCall() {
						outputOnly(b, h.Update)
					}
				}
			}
		})
	}
}

// The updates the tap only counts (text, streamed output) count in the
// turn's and the call's figures exactly as those it reads whole.
func TestCountedUpdates(t *testing.T) {
	chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}}}`
	output := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"line\n"}}}}}`
	steps := append([]step(nil), aSession[:7]...) // up to the tool call
	var want, wantCall int
	for range 10 {
		steps = append(steps, step{aSession[6].at, a2c, chunk, nil}, step{aSession[6].at, a2c, output, nil})
		want += len(chunk) + len(output) + 2
		wantCall += len(output) + 1
	}
	steps = append(steps, aSession[9], aSession[11])
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
	require.NoError(t, err)
	play(t, p, false, steps)
	p.Close(10*time.Second, nil)
	turn := otlptest.Attrs(r.ByName()["invoke_agent codex-acp"][0].Attributes)
	call := otlptest.Attrs(r.ByName()["execute_tool execute"][0].Attributes)
	tcLen, endLen := len(aSession[6].line)+1, len(aSession[9].line)+1
	assert.Equal(t, itoa(22), turn["acp.messages_before"])
	assert.Equal(t, itoa(want+tcLen+endLen), turn["acp.bytes_before"])
	assert.Equal(t, itoa(12), call["acp.tool_call.messages_before"])
	assert.Equal(t, itoa(wantCall+tcLen+endLen), call["acp.tool_call.bytes_before"])
	assert.Equal(t, turn["acp.bytes_before"], turn["acp.bytes_after"])
}

// countingExporter counts the spans it is given, and keeps none.
type countingExporter struct{ n atomic.Int64 }

func (e *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.n.Add(int64(len(spans)))
	return nil
}

func (*countingExporter) Shutdown(context.Context) error { return nil }

// calls feeds conn one turn of n tool calls, each opened and completed,
// and calls each after every call.
func calls(conn *Conn, n int, each func()) {
	at := time.Now()
	feed := func(d acp.Direction, line string) {
		conn.handle(event{kind: passed, dir: d, t: at, line: []byte(line), outSize: len(line) + 1})
	}
	for _, s := range aSession[:5] {
		feed(s.dir, s.line)
	}
	for i := range n {
		feed(a2c, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c%d","kind":"read","status":"in_progress"}}}`, i))
		feed(a2c, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c%d","status":"completed"}}}`, i))
		each()
	}
	feed(a2c, aSession[11].line)
	conn.finish(0)
}

// 50,000 calls in one turn: the connection holds the calls still open and
// the last maxFinished ended, whatever the turn holds; every call is
// exported once.
func TestCallsInOneTurnAreBounded(t *testing.T) {
	exp := &countingExporter{}
	p := newProvider(func(string) string { return "" }, nil, sdktrace.WithSyncer(exp))
	conn := p.NewConn(ConnInfo{Agent: []string{"codex-acp"}})
	held := 0
	calls(conn, 50_000, func() { held = max(held, len(conn.calls)) })
	assert.LessOrEqual(t, held, maxFinished+1)
	require.NoError(t, p.ForceFlush(context.Background()))
	assert.Equal(t, int64(50_000+3), exp.n.Load(), "the calls, the turn, the session and the connection")
}

// BenchmarkCallsInOneTurn: the heap in use while one turn makes 50,000
// tool calls (peak, sampled every 1,000 calls; after a collection).
func BenchmarkCallsInOneTurn(b *testing.B) {
	for range b.N {
		p := newProvider(func(string) string { return "" }, nil, sdktrace.WithBatcher(&countingExporter{}))
		conn := p.NewConn(ConnInfo{Agent: []string{"codex-acp"}})
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base, peak, i := ms.HeapInuse, uint64(0), 0
		calls(conn, 50_000, func() {
			if i++; i%1000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		})
		b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-MiB")
		_ = p.Shutdown(context.Background())
	}
}

func TestClientHead(t *testing.T) {
	for line, countOnly := range map[string]bool{
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`:                         true,
		`{"jsonrpc":"2.0","method":"session/set_mode","params":{"sessionId":"s1","modeId":"ask"}}`:        true,
		`{"jsonrpc":"2.0","method":"session/prompt","id":3,"params":{"sessionId":"s1","prompt":[]}}`:      false,
		`{"jsonrpc":"2.0","method":"initialize","id":0,"params":{"protocolVersion":1}}`:                   false,
		`{"jsonrpc":"2.0","method":"session/close","id":4,"params":{"sessionId":"s1"}}`:                   false,
		`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"ask"}}`: false,
		`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`:         false,
		`{"jsonrpc":"2.0","method":"`: false,
	} {
		assert.Equal(t, countOnly, clientHead([]byte(line)), line)
	}
}

// What the tap reads from a line's head, on the relay's pump, never panics
// whatever the line holds: real lines with bytes changed at random.
func TestCountOnlyNeverPanics(t *testing.T) {
	lines := []string{aSession[6].line, aSession[9].line, string(toolOutputLine(300)), string(chunkLine(200)),
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"exit_code":0}},"toolCallId":"t","sessionUpdate":"tool_call_update"}}}`}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		b := []byte(lines[r.IntN(len(lines))])
		for range 1 + r.IntN(4) {
			b[r.IntN(len(b))] = `{}[]",:\ x0`[r.IntN(11)]
		}
		b = b[:r.IntN(len(b)+1)]
		for _, d := range []acp.Direction{c2a, a2c} {
			countOnly(d, b)
		}
	}
}

// The updates the relay tells in runs (proxy.RunTap: text chunks of two
// sessions, a plan, streamed output) make the same spans, with the same
// figures, as when told one by one.
func TestUpdatesToldInRunsCountAsOneByOne(t *testing.T) {
	update := func(sid, u string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + sid + `","update":` + u + `}}`
	}
	between := []string{
		update("s1", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hello"}}`),
		update("s1", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"again"}}`),
		update("s2", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"elsewhere"}}`),
		update("s1", `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}`),
		update("s1", `{"sessionUpdate":"plan","entries":[]}`),
		update("s1", `{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"c1","data":"line\n"}}}`),
		update("s1", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"more"}}`),
	}
	steps := append([]step(nil), aSession[:7]...) // up to the tool call
	for range 5 {
		for _, l := range between {
			steps = append(steps, step{aSession[6].at, a2c, l, nil})
		}
	}
	for range 600 { // more than one counted event holds
		steps = append(steps, step{aSession[6].at, a2c, between[0], nil})
	}
	steps = append(steps, aSession[9], aSession[11])
	spans := func(runs bool) map[string][]map[string]string {
		r := otlptest.New(t)
		p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
		require.NoError(t, err)
		tap := NewTap(p.NewConn(ConnInfo{Agent: []string{"codex-acp"}}), nil)
		start := time.Date(2026, 11, 27, 21, 0, 0, 0, time.UTC)
		var run [][]byte
		tell := func() {
			if len(run) > 0 {
				tap.PassedRun(a2c, start.Add(aSession[6].at), run)
				run = nil
			}
		}
		for _, s := range steps {
			if runs && s.dir == a2c && s.at == aSession[6].at && s.line != aSession[6].line {
				run = append(run, []byte(s.line))
				continue
			}
			tell()
			line := []byte(s.line)
			tap.Passed(&proxy.Passage{Dir: s.dir, Time: start.Add(s.at), Line: line, EOL: true, Out: []proxy.Sent{{Line: line, Original: true}}})
		}
		tell()
		require.NoError(t, tap.End(c2a))
		require.NoError(t, tap.End(a2c))
		p.Close(10*time.Second, nil)
		out := map[string][]map[string]string{}
		for name, ss := range r.ByName() {
			for _, s := range ss {
				out[name] = append(out[name], otlptest.Attrs(s.Attributes))
			}
		}
		return out
	}
	oneByOne, inRuns := spans(false), spans(true)
	require.NotEmpty(t, oneByOne["execute_tool execute"])
	assert.Equal(t, oneByOne, inRuns)
	call := oneByOne["execute_tool execute"][0]
	assert.Equal(t, itoa(5+2), call["acp.tool_call.messages_before"], "the call's output and its start and end")
	assert.Equal(t, itoa(6*5+600+2), oneByOne["invoke_agent codex-acp"][0]["acp.messages_before"], "s1's updates, its call's start and end")
}
