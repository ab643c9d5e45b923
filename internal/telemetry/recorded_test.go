package telemetry

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// recorded is a committed trace's lines, as steps.
func recorded(t *testing.T, name string) []step {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "traces", name))
	require.NoError(t, err)
	defer f.Close()
	tr := trace.NewReader(f)
	var steps []step
	for {
		rec, err := tr.Next()
		if err == io.EOF {
			return steps
		}
		require.NoError(t, err)
		if rec.HasLine && rec.Line != nil {
			steps = append(steps, step{at: rec.T, dir: rec.Dir, line: string(rec.Line)})
		}
	}
}

// Real sessions of codex-acp and claude-agent-acp, whose text and output
// the tap counts from the lines' heads: each call's figures are those of
// the updates a full read of every line finds for it, and the
// connection's are its lines'.
func TestRecordedSessionsCountAsAFullRead(t *testing.T) {
	for _, name := range []string{"codex-0.16-zed-exec-5.jsonl", "codex-0.13-zed-shell-5.jsonl", "claude-0.101-zed-persisted-4000.jsonl", "claude-0.101-plain-5.jsonl"} {
		t.Run(name, func(t *testing.T) {
			steps := recorded(t, name)
			calls := map[string][2]int64{} // by call id: messages, bytes
			var a2cBytes int64
			for _, s := range steps {
				if s.dir != a2c {
					continue
				}
				a2cBytes += int64(len(s.line)) + 1
				if u, ok := acp.NewMessage(a2c, []byte(s.line), time.Time{}).ToolUpdate(); ok {
					c := calls[u.ID]
					calls[u.ID] = [2]int64{c[0] + 1, c[1] + int64(len(s.line)) + 1}
				}
			}
			require.NotEmpty(t, calls)
			p, exp := memProvider(nil)
			play(t, p, false, steps)
			require.NoError(t, p.ForceFlush(context.Background()))
			var seen int
			for _, s := range exp.GetSpans() {
				a := intAttributes(s.Attributes)
				if s.Name == "acp.connection" {
					assert.Equal(t, a2cBytes, a["acp.agent->client.bytes_before"])
				}
				for _, kv := range s.Attributes {
					if kv.Key == "gen_ai.tool.call.id" {
						seen++
						want := calls[kv.Value.AsString()]
						assert.Equal(t, want[0], a["acp.tool_call.messages_before"], kv.Value.AsString())
						assert.Equal(t, want[1], a["acp.tool_call.bytes_before"], kv.Value.AsString())
					}
				}
			}
			assert.Equal(t, len(calls), seen, "a span per call")
		})
	}
}
