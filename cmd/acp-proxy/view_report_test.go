package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acp-proxy/acp-proxy/internal/pipebench"
	"github.com/stretchr/testify/require"
)

// TestViewBigTraceReport measures `acp-proxy view` on the trace
// scripts/make-big-trace generates, for BENCHMARKS.md: the page's size,
// the time to make it against the time `replay` takes on the same trace
// with the same flags (wall and CPU, median of runs taken in turns), and
// the time the page takes to render in headless Chromium. It asserts
// nothing timed; it only runs with VIEW_REPORT=1.
//
//	scripts/make-big-trace
//	VIEW_REPORT=1 go test ./cmd/acp-proxy -run TestViewBigTraceReport -v -timeout 30m
func TestViewBigTraceReport(t *testing.T) {
	if os.Getenv("VIEW_REPORT") != "1" {
		t.Skip("VIEW_REPORT=1 measures view on the big trace (scripts/make-big-trace)")
	}
	path := filepath.Join(tracesDir, generatedTraces[0]+".jsonl")
	st, err := os.Stat(path)
	require.NoError(t, err, "run scripts/make-big-trace first")
	runs := 5
	t.Logf("trace %s: %d bytes; median of %d runs each, taken in turns", filepath.Base(path), st.Size(), runs)
	t.Logf("| flags | replay wall | view wall | view/replay wall | replay CPU | view CPU | view/replay CPU | page | rendered (laid out) in Chromium |")
	t.Logf("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, flags := range [][]string{nil, {"--terminal-output", "--deltas"}} {
		page := filepath.Join(t.TempDir(), "big.html")
		var replayWall, viewWall, replayCPU, viewCPU []time.Duration
		for range runs {
			w, c := measure(t, append(append([]string{"replay"}, flags...), path), io.Discard)
			replayWall, replayCPU = append(replayWall, w), append(replayCPU, c)
			w, c = measure(t, append(append([]string{"view", "-o", page}, flags...), path), io.Discard)
			viewWall, viewCPU = append(viewWall, w), append(viewCPU, c)
		}
		html, err := os.ReadFile(page)
		require.NoError(t, err)
		r := loadPage(t, html, false, "")
		require.Equal(t, "1", r.Ready)
		require.Empty(t, r.Errors)
		rw, vw, rc, vc := median(replayWall), median(viewWall), median(replayCPU), median(viewCPU)
		t.Logf("| %s | %.2f s | %.2f s | %.2f | %.2f s | %.2f s | %.2f | %.2f MB | %.0f ms (%.0f ms) |",
			strings.Join(append([]string{"(none)"}, flags...)[min(1, len(flags)):], " "),
			rw.Seconds(), vw.Seconds(), vw.Seconds()/rw.Seconds(), rc.Seconds(), vc.Seconds(), vc.Seconds()/rc.Seconds(),
			float64(len(html))/1e6, r.RenderMs, r.LayoutMs)
	}
}

// measure runs the command in process and returns its wall and CPU time
// (user+system of the whole process, which runs nothing else meanwhile).
func measure(t *testing.T, args []string, stdout io.Writer) (wall, cpu time.Duration) {
	t.Helper()
	before := pipebench.CPUTime()
	start := time.Now()
	var stderr strings.Builder
	code := run(args, strings.NewReader(""), stdout, &stderr)
	wall = time.Since(start)
	after := pipebench.CPUTime()
	require.Equal(t, 0, code, "%q: %s", args, stderr.String())
	return wall, time.Duration(after - before)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
