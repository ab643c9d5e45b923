package output

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The no-loss property, on generated stream shapes: whatever the agent
// streams, in whatever order, a client of each model shows with the output
// filters all it shows without them (acpclient.Losses). A shape is drawn
// from a byte string, so the fuzz target explores shapes and the seeded
// test replays many.

// chooser draws choices from a byte string; past its end every choice is 0.
type chooser struct {
	b []byte
	i int
}

func (c *chooser) n(k int) int {
	if c.i >= len(c.b) || k <= 1 {
		c.i++
		return 0
	}
	v := int(c.b[c.i]) % k
	c.i++
	return v
}

func (c *chooser) yes() bool { return c.n(2) == 1 }

// Stream kinds: how an agent streams one command.
const (
	streamAppend      = iota // terminal_output chunks (codex-acp, claude-agent-acp 0.23)
	streamDeltaKey           // terminal_output_delta chunks, maybe a terminal_output replacement (claude-agent-acp 0.101)
	streamSnapshots          // accumulated snapshots in the content (codex-acp 0.13 without the extension)
	streamUnasked            // terminal_output_delta to every client, asked or not, and an end of status and terminal_exit (codex-acp 2.x)
	streamUnannounced        // the same into a terminal no content item announced (codex-acp 2.x's listings)
	streamKinds
)

// Ends: what the agent sends when the command is over.
const (
	endRawOutput  = iota // a final update with rawOutput holding the output (codex)
	endStatusOnly        // a final update of status only (claude-agent-acp 0.101)
	endFailed            // failed, with rawOutput holding more than was streamed
	endNone              // nothing: the turn's response ends it
	endLate              // completed, then one more chunk
	endLateInRaw         // completed with rawOutput holding one more line, then that line as a chunk
	endKinds
)

// genCall is one generated command.
type genCall struct {
	session, id string
	kind, end   int
	chunks      []string // JSON string bytes, each a chunk of output
}

// chunkPalette are the pieces outputs are made of: lines, \r\n, ANSI,
// multi-byte characters, and the halves of a surrogate pair.
var chunkPalette = []string{
	"line %d\\n", "line %d\\r\\n", "\\u001b[31mred %d\\u001b[0m\\n", "caf\u00e9 %d\\n", "\\ud83d", "\\ude00 %d\\n", "\\\"q\\\" %d\\t", "%d",
}

// genChunks draws n chunks, numbered from base so that no two lines of a
// run are alike.
func genChunks(c *chooser, n, base int, big bool) []string {
	var out []string
	for i := 0; i < n; i++ {
		var b strings.Builder
		parts := 1 + c.n(4)
		if big {
			parts = 40
		}
		for j := 0; j < parts; j++ {
			p := chunkPalette[c.n(len(chunkPalette))]
			if strings.Contains(p, "%d") {
				p = fmt.Sprintf(p, base*1000+i*50+j)
			}
			b.WriteString(p)
		}
		out = append(out, b.String())
	}
	return out
}

// scenario is one generated connection.
type scenario struct {
	client       string // clientCapabilities
	model        acpclient.Model
	agent        string
	terminal     bool // --terminal-output
	deltas       bool // --deltas
	tail         int  // --live-tail-bytes
	v2           bool // the client speaks protocol version 2
	calls        []*genCall
	steps        []step // the connection after initialize
	cancel, load bool
	roundRobin   bool // the calls' messages take turns (else c draws the order)
	// reuse: a second turn runs calls with the same ids, after a first
	// that may have left them without a final update.
	reuse []*genCall
}

// genScenario draws a scenario from c.
func genScenario(c *chooser) *scenario {
	s := &scenario{agent: codexAgent, tail: 256}
	s.model = acpclient.Models[c.n(len(acpclient.Models))]
	s.client = map[acpclient.Model]string{acpclient.PlainModel: plainClient, acpclient.ZedModel: zedClient,
		acpclient.DeltaModel: deltaClient, acpclient.ContentOnlyModel: plainClient}[s.model]
	if c.yes() {
		s.agent = claudeAgent
	}
	switch c.n(3) {
	case 0:
		s.terminal = true
	case 1:
		s.deltas = true
	default:
		s.terminal, s.deltas = true, true
	}
	// The rare shapes are the last value of a choice, so that a short
	// input (every choice past its end is 0) draws a small scenario.
	s.v2 = c.n(8) == 7
	s.cancel, s.load = c.n(6) == 5, c.n(6) == 5
	many := c.n(12) == 11 // more calls than a filter keeps
	sessions := 1 + c.n(2)
	perSession := 1 + c.n(3)
	if many {
		sessions, perSession = 1, 130
	}
	for si := 0; si < sessions; si++ {
		for ci := 0; ci < perSession; ci++ {
			g := &genCall{session: fmt.Sprintf("s%d", si+1), id: fmt.Sprintf("c%d", ci+1), kind: c.n(streamKinds), end: c.n(endKinds)}
			if many {
				g.kind, g.end = streamAppend, endStatusOnly
			}
			g.chunks = genChunks(c, 1+c.n(5), si*200+ci, c.n(10) == 9)
			unasked := g.kind == streamUnasked || g.kind == streamUnannounced
			plainish := s.model == acpclient.PlainModel || s.model == acpclient.ContentOnlyModel
			if !unasked && (g.kind == streamDeltaKey && s.model == acpclient.ZedModel || g.kind != streamSnapshots && plainish) {
				// The client cannot read the stream: only --terminal-output
				// asks for it on its behalf, or puts it under its key.
				s.terminal = true
			}
			if g.kind == streamSnapshots && s.model == acpclient.ContentOnlyModel {
				// Such a client ends the call with the final update's own
				// content, which snapshot agents leave out: --deltas, the
				// filter of snapshots, puts it there.
				s.deltas = true
			}
			s.calls = append(s.calls, g)
		}
	}
	if c.n(5) == 4 {
		for _, g := range s.calls {
			s.reuse = append(s.reuse, &genCall{session: g.session, id: g.id, kind: g.kind, end: c.n(endKinds),
				chunks: genChunks(c, 1+c.n(3), 900+len(s.reuse), false)})
		}
	}
	s.steps = s.connection(c)
	return s
}

// sUpd is a tool_call_update of call id in session with more members.
func sUpd(session, id, members string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":{"sessionUpdate":"tool_call_update","toolCallId":"` + id + `",` + members + `}}}`
}

// messages are the agent's messages of call g, in order.
func (s *scenario) messages(c *chooser, g *genCall) []string {
	tc := `"sessionUpdate":"tool_call","toolCallId":"` + g.id + `","title":"cmd","kind":"execute","status":"in_progress"`
	if g.kind == streamUnannounced {
		tc = `"sessionUpdate":"tool_call","toolCallId":"` + g.id + `","title":"List files","kind":"read","status":"in_progress"`
	}
	if g.kind != streamSnapshots && g.kind != streamUnannounced {
		tc += `,"content":[{"type":"terminal","terminalId":"` + g.id + `"}],"_meta":{"terminal_info":{"terminal_id":"` + g.id + `"}}`
	}
	msgs := []string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + g.session + `","update":{` + tc + `}}}`}
	data := func(key, esc string) string {
		return sUpd(g.session, g.id, `"_meta":{"`+key+`":{"terminal_id":"`+g.id+`","data":"`+esc+`"}}`)
	}
	sofar := ""
	for i, ch := range g.chunks {
		sofar += ch
		switch g.kind {
		case streamAppend:
			msgs = append(msgs, data("terminal_output", ch))
		case streamUnasked, streamUnannounced:
			msgs = append(msgs, data("terminal_output_delta", ch))
		case streamDeltaKey:
			msgs = append(msgs, data("terminal_output_delta", ch))
			if i == len(g.chunks)-1 && c.yes() {
				// The replacement: the output again, whole, as claude's
				// background output does after skipping ahead.
				msgs = append(msgs, data("terminal_output", sofar))
			}
		case streamSnapshots:
			fenced := `"` + sofar + `"`
			if s.agent == codexAgent {
				fenced = string(fenceCodex.quoteEscaped([]byte(sofar)))
			}
			msgs = append(msgs, sUpd(g.session, g.id, `"content":[{"type":"content","content":{"type":"text","text":`+fenced+`}}]`))
		}
	}
	return append(msgs, s.ending(g, sofar)...)
}

// ending is what the agent sends for g once its output is out.
func (s *scenario) ending(g *genCall, all string) []string {
	raw := func(esc string) string {
		return `"rawOutput":{"stdout":"` + esc + `","stderr":"","aggregated_output":"` + esc + `","exit_code":0}`
	}
	exit := `"_meta":{"terminal_exit":{"terminal_id":"` + g.id + `","exit_code":0,"signal":null}}`
	if g.kind == streamSnapshots {
		exit = `"_meta":{"other":1}`
	}
	if g.kind == streamUnasked || g.kind == streamUnannounced {
		// codex-acp 2.x: no output in rawOutput, whatever the end.
		switch g.end {
		case endNone:
			return nil
		case endLate:
			return []string{sUpd(g.session, g.id, `"status":"completed",`+exit),
				sUpd(g.session, g.id, `"_meta":{"terminal_output_delta":{"terminal_id":"`+g.id+`","data":"late\n"}}`)}
		case endFailed:
			return []string{sUpd(g.session, g.id, `"status":"failed",`+exit)}
		}
		return []string{sUpd(g.session, g.id, `"status":"completed","rawOutput":{"exit_code":0},`+exit)}
	}
	switch g.end {
	case endRawOutput:
		return []string{sUpd(g.session, g.id, `"status":"completed",`+raw(all)+`,`+exit)}
	case endStatusOnly:
		return []string{sUpd(g.session, g.id, `"status":"completed"`)}
	case endFailed:
		return []string{sUpd(g.session, g.id, `"status":"failed",`+raw(all+`more\n`)+`,`+exit)}
	case endLate:
		late := sUpd(g.session, g.id, `"_meta":{"terminal_output":{"terminal_id":"`+g.id+`","data":"late\n"}}`)
		switch g.kind {
		case streamDeltaKey:
			late = strings.Replace(late, "terminal_output", "terminal_output_delta", 1)
		case streamSnapshots:
			late = sUpd(g.session, g.id, `"content":[{"type":"content","content":{"type":"text","text":"`+all+`late\n"}}]`)
		}
		return []string{sUpd(g.session, g.id, `"status":"completed",`+raw(all)), late}
	case endLateInRaw:
		// codex reports the whole output in rawOutput while its last chunk is on the way.
		if g.kind == streamSnapshots {
			return []string{sUpd(g.session, g.id, `"status":"completed",`+raw(all+`late\n`)),
				sUpd(g.session, g.id, `"content":[{"type":"content","content":{"type":"text","text":"`+all+`late\n"}}]`)}
		}
		key := "terminal_output"
		if g.kind == streamDeltaKey {
			key = "terminal_output_delta"
		}
		return []string{sUpd(g.session, g.id, `"status":"completed",`+raw(all+`late\n`)+`,`+exit),
			sUpd(g.session, g.id, `"_meta":{"`+key+`":{"terminal_id":"`+g.id+`","data":"late\n"}}`)}
	}
	return nil
}

// connection interleaves the calls' messages, with time passing, a
// permission request in the middle of a stream, and the ends of the
// turns.
func (s *scenario) connection(c *chooser) []step {
	var steps []step
	queues := make([][]string, len(s.calls))
	for i, g := range s.calls {
		queues[i] = s.messages(c, g)
	}
	if s.load {
		steps = append(steps,
			step{dir: acp.ClientToAgent, line: `{"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":"s9","cwd":"/p","mcpServers":[]}}`},
			fromAgent(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s9","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"old","kind":"execute","status":"completed","content":[{"type":"content","content":{"type":"text","text":"old output\n"}}]}}}`),
			fromAgent(`{"jsonrpc":"2.0","id":5,"result":null}`))
	}
	steps = append(steps, step{dir: acp.ClientToAgent, line: `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s2","prompt":[]}}`})
	turn := 0
	for {
		live := []int{}
		for i, q := range queues {
			if len(q) > 0 {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			break
		}
		i := live[c.n(len(live))]
		if s.roundRobin {
			i = live[turn%len(live)]
			turn++
		}
		steps = append(steps, fromAgent(queues[i][0]))
		queues[i] = queues[i][1:]
		if c.n(16) == 0 {
			g := s.calls[i]
			steps = append(steps,
				fromAgent(`{"jsonrpc":"2.0","id":"perm","method":"session/request_permission","params":{"sessionId":"`+g.session+`","toolCall":{"toolCallId":"`+g.id+`","title":"cmd"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`),
				step{dir: acp.ClientToAgent, line: `{"jsonrpc":"2.0","id":"perm","result":{"outcome":{"outcome":"selected","optionId":"a"}}}`})
		}
		if w := c.n(4); w > 0 {
			steps = append(steps, after(time.Duration(w*w*20)*time.Millisecond))
		}
	}
	stop := "end_turn"
	if s.cancel {
		steps = append(steps, step{dir: acp.ClientToAgent, line: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`})
		stop = "cancelled"
	}
	steps = append(steps,
		fromAgent(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"`+stop+`"}}`),
		fromAgent(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`),
		after(time.Second))
	if len(s.reuse) == 0 {
		return steps
	}
	// The next turns, in each session, with the same call ids.
	for i, sid := range []string{"s1", "s2"} {
		steps = append(steps, step{dir: acp.ClientToAgent, line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[]}}`, 30+i, sid)})
	}
	for _, g := range s.reuse {
		for _, msg := range s.messages(c, g) {
			steps = append(steps, fromAgent(msg))
		}
	}
	return append(steps,
		fromAgent(`{"jsonrpc":"2.0","id":30,"result":{"stopReason":"end_turn"}}`),
		fromAgent(`{"jsonrpc":"2.0","id":31,"result":{"stopReason":"end_turn"}}`),
		after(time.Second))
}

// losses runs s with and without the filters and returns what a client of
// s's model shows less with them.
func (s *scenario) losses(t testing.TB) []string {
	var fs []filters.Filter
	if s.deltas {
		fs = append(fs, &Deltas{LiveTailBytes: s.tail})
	}
	if s.terminal || s.deltas {
		// As the filter set builds it: --deltas alone shows output sent unasked.
		fs = append(fs, &TerminalOutput{LiveTailBytes: s.tail, OnlyUnasked: !s.terminal})
	}
	fs = append(fs, &PersistedOutput{})
	version := "1"
	if s.v2 {
		version = "2"
	}
	h := newHarnessInit(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":`+version+`,"clientCapabilities":`+s.client+`}}`, s.agent, fs...)
	direct := acpclient.NewView(s.model)
	for _, st := range s.steps {
		if st.wait == 0 && st.dir == acp.AgentToClient {
			require.NoError(t, direct.Line([]byte(st.line)))
		}
	}
	h.run(s.steps...)
	h.drain()
	require.Empty(t, h.errs, "filter failures")
	proxied := acpclient.NewView(s.model)
	for _, l := range h.take() {
		require.NoError(t, proxied.Line([]byte(l)))
		require.True(t, rawjson.Valid([]byte(l)), "not JSON: %s", l)
	}
	return acpclient.Losses(direct, proxied)
}

func (s *scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "client %v, agent %s, terminal-output %v, deltas %v, v2 %v, cancel %v, load %v, %d calls:", s.model, s.agent, s.terminal, s.deltas, s.v2, s.cancel, s.load, len(s.calls))
	for i, g := range s.calls {
		if i == 4 {
			b.WriteString(" …")
			break
		}
		fmt.Fprintf(&b, " %s/%s stream %d end %d (%d chunks);", g.session, g.id, g.kind, g.end, len(g.chunks))
	}
	return b.String()
}

// TestTheFourLosses are the shapes the property found on the filters
// before they kept what a client shows: each a plain client, the one that
// depends on the proxy most.
func TestTheFourLosses(t *testing.T) {
	big := func(base int) []string { return genChunks(&chooser{b: []byte{1, 1, 1, 1}}, 12, base, true) }
	many := func() []*genCall {
		var calls []*genCall
		for i := 0; i < 130; i++ {
			calls = append(calls, &genCall{session: "s1", id: fmt.Sprintf("c%d", i+1), kind: streamAppend, end: endStatusOnly,
				chunks: []string{fmt.Sprintf("first %d\\n", i), fmt.Sprintf("second %d\\n", i)}})
		}
		return calls
	}
	// 10,000 lines in 100 chunks: past the default 64 KiB live tail.
	tenThousand := func() []string {
		var chunks []string
		for c := 0; c < 100; c++ {
			var b strings.Builder
			for i := c * 100; i < (c+1)*100; i++ {
				fmt.Fprintf(&b, "line %d\\n", i+1)
			}
			chunks = append(chunks, b.String())
		}
		return chunks
	}
	for _, c := range []struct {
		name     string
		terminal bool
		calls    []*genCall
		tail     int // zero: the default
	}{
		{"the end is lost: the turn ends, no final update, after a live tail", true,
			[]*genCall{{session: "s1", id: "c1", kind: streamAppend, end: endNone, chunks: big(1)}}, 256},
		{"the same with snapshots", false,
			[]*genCall{{session: "s1", id: "c1", kind: streamSnapshots, end: endNone, chunks: big(2)}}, 256},
		{"output after the call completed", true,
			[]*genCall{{session: "s1", id: "c1", kind: streamAppend, end: endLate, chunks: []string{"line 1\\n", "line 2\\n"}}}, 256},
		{"more calls streaming than a filter keeps", true, many(), 256},
		{"10,000 lines, the default live tail, the turn ends", true,
			[]*genCall{{session: "s1", id: "c1", kind: streamAppend, end: endNone, chunks: tenThousand()}}, 0},
		{"10,000 lines of snapshots, the default live tail, the turn ends", false,
			[]*genCall{{session: "s1", id: "c1", kind: streamSnapshots, end: endNone, chunks: tenThousand()}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &scenario{client: plainClient, model: acpclient.PlainModel, agent: codexAgent, terminal: c.terminal, deltas: !c.terminal,
				tail: c.tail, calls: c.calls, roundRobin: true}
			s.steps = s.connection(&chooser{})
			assert.Empty(t, s.losses(t))
		})
	}
}

// TestNoOutputLostOnGeneratedStreams draws many scenarios from a seeded
// generator.
func TestNoOutputLostOnGeneratedStreams(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(18, 1))
	for i := 0; i < n; i++ {
		b := make([]byte, 64+r.IntN(400))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		s := genScenario(&chooser{b: b})
		losses := s.losses(t)
		require.Empty(t, losses, "scenario %d (%s):\n%s", i, s, strings.Join(losses, "\n"))
	}
}

// FuzzNoOutputLost explores scenarios.
func FuzzNoOutputLost(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3, 3, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 4, 4, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		s := genScenario(&chooser{b: b})
		losses := s.losses(t)
		require.Empty(t, losses, "%s:\n%s", s, strings.Join(losses, "\n"))
	})
}
