package filterset_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
)

// subagentLines are a subagent's tool call in session sid, a session no
// session/new created: claude-agent-acp's Bash call, which every filter
// keeps state for (shell-to-patch its session and call, the output
// filters the call and its output), and output.
func subagentLines(sid string) []string {
	return []string{
		update2(sid, `{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"toolu_01"}},"toolCallId":"toolu_01","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":"toolu_01"}]}`),
		update2(sid, `{"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_output_delta":{"terminal_id":"toolu_01","data":"a.txt\n"}},"toolCallId":"toolu_01","sessionUpdate":"tool_call_update"}`),
	}
}

func update2(sid, u string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":%s}}`, sid, u)
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestUnknownSessionsLeaveTheHeapFlat runs 100,000 subagents, each under
// a session id of its own that no session/new created, through every
// filter, and measures the heap in use after 10,000 and after 100,000:
// state bounded per session does not grow between the two. (With
// shell-to-patch's sessions unbounded it grew by 7.3 MB: 85 bytes a
// session.)
func TestUnknownSessionsLeaveTheHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 sessions")
	}
	c := filterset.Config{ShellToPatch: true, Deltas: true, TerminalOutput: true, ExpandPersistedOutput: true}.Chain(capabilities.New())
	clock := filters.NewManualClock(time.Unix(0, 0))
	sink := func(filters.Line) error { return nil }
	dr := filters.NewDriver(c, clock, sink)
	feed := func(d acp.Direction, lines ...string) {
		for _, l := range lines {
			require.NoError(t, dr.Process(filters.NewMessage(d, []byte(l), clock.Now(), nil), sink))
			require.NoError(t, dr.Tick(d))
		}
	}
	feed(acp.ClientToAgent, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
	feed(acp.AgentToClient, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"@agentclientprotocol/claude-agent-acp","version":"0.101.0"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"main"}}`)
	before := heapInUse()
	var at10k uint64
	for i := range 100_000 {
		if i == 10_000 {
			at10k = heapInUse()
		}
		feed(acp.AgentToClient, subagentLines(fmt.Sprintf("sub-%06d", i))...)
		clock.Advance(clock.Now().Add(time.Millisecond))
	}
	after := heapInUse()
	runtime.KeepAlive(c)
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	t.Logf("heap in use: %.1f MB before, %.1f MB after 10,000 sessions, %.1f MB after 100,000", mb(before), mb(at10k), mb(after))
	assert.Less(t, int64(after)-int64(at10k), int64(1<<20), "the heap grew by %.1f MB from 10,000 sessions to 100,000", mb(after)-mb(at10k))
}
