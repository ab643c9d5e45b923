package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An agent that waits for the client in the middle of a line longer than
// --max-filter-line (codex-acp's snapshots of a big build log make such
// lines) is not stuck: the client's request reaches it while the line
// pauses, with recording and filters too.
func TestAnAgentPausingInALongLineForTheClientGetsItsRequest(t *testing.T) {
	const maxLine, size = 64 << 10, 1 << 20 // the agent pauses after size/2
	for name, flags := range map[string][]string{
		"no flags":                   nil,
		"--record":                   {"--record"},
		"--terminal-output --record": {"--terminal-output", "--record"},
	} {
		t.Run(name, func(t *testing.T) {
			tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
			args := append([]string{}, flags...)
			if len(flags) > 0 {
				args = append(args, tracePath)
			}
			args = append(args, "--max-filter-line", fmt.Sprint(maxLine), "--", fakeAgent(t), "--pause-line", fmt.Sprint(size/2))
			s := start(t, args...)

			_, err := io.ReadFull(s.stdout, make([]byte, maxLine+1))
			require.NoError(t, err, "the head of the long line")
			_, err = io.WriteString(s.stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
			require.NoError(t, err)
			rest := make(chan int, 1)
			go func() {
				b, _ := s.stdout.ReadBytes('\n')
				rest <- len(b)
			}()
			select {
			case n := <-rest:
				assert.Equal(t, size+1-(maxLine+1), n, "the rest of the line, and its '\\n'")
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the agent is still waiting for the request the client sent")
			}
			s.stdin.Close()
			assert.Equal(t, 0, s.wait(t), "stderr: %s", s.stderr)

			if len(flags) == 0 {
				return
			}
			f, err := os.Open(tracePath)
			require.NoError(t, err)
			defer f.Close()
			var long int
			for rec, err := range trace.NewReader(f).All() {
				require.NoError(t, err)
				if len(rec.Line) == size {
					long++
				}
			}
			assert.Equal(t, 1, long, "the trace holds the long line once, whole")
		})
	}
}
