package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkViewAgainstReplay makes a trace's page and, in the same
// iteration, replays the trace with the same flags: view/replay is the
// page's cost in replays (the bound is 2). page-bytes is the
// page's size. The big trace is scripts/make-big-trace's; without it only
// the committed 900-line snapshot trace runs.
//
//	go test ./cmd/acp-proxy -run '^$' -bench BenchmarkViewAgainstReplay -benchtime 5x
func BenchmarkViewAgainstReplay(b *testing.B) {
	for _, trace := range []string{"codex-0.13-plain-shell-900", generatedTraces[0]} {
		path := filepath.Join(tracesDir, trace+".jsonl")
		if _, err := os.Stat(path); err != nil {
			continue
		}
		for _, flags := range [][]string{nil, {"--terminal-output", "--deltas"}} {
			name := trace + "/" + strings.TrimPrefix(strings.Join(append([]string{"none"}, flags...)[min(1, len(flags)):], "+"), "--")
			name = strings.ReplaceAll(name, "+--", "+")
			b.Run(name, func(b *testing.B) {
				page := filepath.Join(b.TempDir(), "page.html")
				var replay, view time.Duration
				for range b.N {
					start := time.Now()
					benchRun(b, append(append([]string{"replay"}, flags...), path))
					replay += time.Since(start)
					start = time.Now()
					benchRun(b, append(append([]string{"view", "-o", page}, flags...), path))
					view += time.Since(start)
				}
				st, err := os.Stat(page)
				require.NoError(b, err)
				b.ReportMetric(view.Seconds()/replay.Seconds(), "view/replay")
				b.ReportMetric(replay.Seconds()/float64(b.N), "replay-s/op")
				b.ReportMetric(view.Seconds()/float64(b.N), "view-s/op")
				b.ReportMetric(float64(st.Size()), "page-bytes")
			})
		}
	}
}

func benchRun(b *testing.B, args []string) {
	var stderr strings.Builder
	code := run(args, strings.NewReader(""), io.Discard, &stderr)
	require.Equal(b, 0, code, "%q: %s", args, stderr.String())
}
