package filterset_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// tracedLine is one line of a recorded session, at its time.
type tracedLine struct {
	at  time.Time
	dir acp.Direction
	raw []byte
}

// readTrace reads the lines the peers sent in a recorded session.
func readTrace(t *testing.T, path string) []tracedLine {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []tracedLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			T   float64         `json:"t"`
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Msg == nil {
			continue
		}
		d := acp.AgentToClient
		if rec.Dir == "client->agent" {
			d = acp.ClientToAgent
		}
		at := time.Unix(0, 0).Add(time.Duration(rec.T * float64(time.Second)))
		lines = append(lines, tracedLine{at, d, append([]byte(nil), rec.Msg...)})
	}
	require.NoError(t, sc.Err())
	return lines
}

// withChunks is lines with an agent_message_chunk of the same session
// after every tool update: text streaming while output is held.
func withChunks(lines []tracedLine) []tracedLine {
	var out []tracedLine
	for _, l := range lines {
		out = append(out, l)
		m := acp.NewMessage(l.dir, l.raw, l.at)
		if _, ok := m.ToolUpdate(); ok {
			chunk := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":` + string(mustJSON(m.SessionID())) +
				`,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"and some text"}}}}`
			out = append(out, tracedLine{l.at, acp.AgentToClient, []byte(chunk)})
		}
	}
	return out
}

func mustJSON(s string) []byte { b, _ := json.Marshal(s); return b }

// methodsFirst is lines with each of the client's requests and
// notifications written with its method first, as some clients write
// them, and a notification of a method nobody reads after each.
func methodsFirst(lines []tracedLine) []tracedLine {
	var out []tracedLine
	for _, l := range lines {
		method, ok := rawjson.Get(l.raw, "method")
		if l.dir != acp.ClientToAgent || !ok {
			out = append(out, l)
			continue
		}
		raw := append([]byte(`{"jsonrpc":"2.0","method":`), method...)
		_ = rawjson.Members(l.raw, func(key, val []byte) bool {
			if k := string(key); k != "jsonrpc" && k != "method" {
				raw = append(append(append(append(raw, `,"`...), key...), `":`...), val...)
			}
			return true
		})
		out = append(out, tracedLine{l.at, l.dir, append(raw, '}')},
			tracedLine{l.at, l.dir, []byte(`{"jsonrpc":"2.0","method":"_example/ping","params":{}}`)})
	}
	return out
}

// skipping is how runLines lets lines skip the chain.
type skipping int

const (
	noSkips    skipping = iota // every line goes through the chain
	lineSkips                  // a line is asked of (Chain.Skips)
	chunkSkips                 // so is a line, but a text chunk as the relay asks of a run of them (Chain.SkipsChunks)
)

// runLines runs lines through every filter, as the relay does (each line
// at its time; the coalescing filters' timers on that clock), and returns
// what left the chain, in order. A line the chain skips is passed as it
// is, without Process or Tick.
func runLines(t *testing.T, cfg filterset.Config, lines []tracedLine, skips skipping) (out []string, skipped [2]int) {
	c := cfg.Chain(capabilities.New())
	defer c.Close()
	sink := func(l filters.Line) error {
		out = append(out, l.Dir.String()+" "+string(l.Raw))
		return nil
	}
	clock := filters.NewManualClock(time.Unix(0, 0))
	dr := filters.NewDriver(c, clock, sink)
	for _, l := range lines {
		require.NoError(t, clock.Advance(l.at))
		h, ok := acp.ReadUpdateHead(l.raw)
		chunk := skips == chunkSkips && l.dir == acp.AgentToClient && ok && h.TextChunk()
		if chunk && c.SkipsChunks(l.dir) || !chunk && skips != noSkips && c.Skips(l.dir, l.raw) {
			skipped[l.dir]++
			require.NoError(t, sink(filters.Line{Dir: l.dir, Raw: l.raw, Original: true}))
			continue
		}
		require.NoError(t, dr.Process(filters.NewMessage(l.dir, l.raw, clock.Now(), nil), sink))
		require.NoError(t, dr.Tick(l.dir))
	}
	require.NoError(t, clock.Advance(clock.Now().Add(time.Minute)))
	for _, d := range []acp.Direction{acp.ClientToAgent, acp.AgentToClient} {
		require.NoError(t, dr.Drain(d))
	}
	return out, skipped
}

// skipConfigs are the chains the skipping is proven on: the output filters
// with shell-to-patch, then with --show-changes (whose hold queue keeps
// every line behind a call's end awaiting its report: in a replay with no
// report recorded, for maxCallHold), and --show-changes alone.
var skipConfigs = []struct {
	name string
	cfg  filterset.Config
}{
	{"filters", filterset.Config{ShellToPatch: true, Deltas: true, TerminalOutput: true, ExpandPersistedOutput: true, Replaying: true}},
	{"filters and show-changes", filterset.Config{ShellToPatch: true, Deltas: true, TerminalOutput: true, ExpandPersistedOutput: true,
		ShowChanges: true, Replaying: true}},
	{"show-changes", filterset.Config{ShowChanges: true, Replaying: true}},
}

// A line the chain skips is one every filter would have passed on as it
// is, with nothing emitted and nothing changed for what follows: every
// recorded session, and each with text chunks streaming between its tool
// updates, leaves the filters exactly as when every line runs through
// them, and the chunks are skipped.
func TestSkippingTheChainChangesNothing(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/traces/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, sc := range skipConfigs {
		t.Run(sc.name, func(t *testing.T) {
			var skippedInAll [2]int
			for _, path := range paths {
				t.Run(filepath.Base(path), func(t *testing.T) {
					lines := readTrace(t, path)
					for _, variant := range []struct {
						name  string
						lines []tracedLine
					}{{"as recorded", lines}, {"with chunks", withChunks(lines)}, {"a client's methods first", methodsFirst(lines)}} {
						want, _ := runLines(t, sc.cfg, variant.lines, noSkips)
						got, skipped := runLines(t, sc.cfg, variant.lines, lineSkips)
						assert.Equal(t, want, got, variant.name)
						skippedInAll[acp.AgentToClient] += skipped[acp.AgentToClient]
						skippedInAll[acp.ClientToAgent] += skipped[acp.ClientToAgent]
						got, _ = runLines(t, sc.cfg, variant.lines, chunkSkips)
						assert.Equal(t, want, got, variant.name+", chunks asked of as the relay asks of a run")
					}
				})
			}
			assert.Positive(t, skippedInAll[acp.AgentToClient], "no agent's line skipped the chain")
			if sc.name == "show-changes" {
				assert.Positive(t, skippedInAll[acp.ClientToAgent], "no client's line skipped the chain")
			}
		})
	}
}
