package changes

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// heapInUse is the bytes of heap spans in use now (runtime/metrics: live
// and not yet collected objects, and the free space of their spans), what
// the process holds of the heap whatever the collector has yet to free.
func heapInUse(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// peakSampler samples the heap in use every millisecond until stopped;
// stop returns the highest it saw.
func peakSampler() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	peak := heapInUse(s)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				peak = max(peak, heapInUse(s))
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return max(peak, heapInUse(s))
	}
}

// BenchmarkReportPeakHeap measures the heap a session's directory costs at
// its highest, in git and out, with as many files as a scan outside git
// watches (Limits.MaxFiles): the before-state held while the command runs,
// and the report after it changed a handful of files (the scan again, the
// diff against the before-state, the shown files read, the update's
// report made). "long" is the worst tree outside git: paths filling the
// bytes of paths watched (maxPathBytes, 83 bytes each) and texts the bytes
// of copies (MaxCopyBytes, 167 bytes each). peak-MB is the heap in use at
// its highest during the report (sampled every millisecond, garbage not
// yet collected included; a collection just before it), above the heap
// before the before-state was taken; held-MB is the before-state alone,
// after a collection; take-peak-MB the heap at its highest while the
// before-state was taken, from a collection.
func BenchmarkReportPeakHeap(b *testing.B) {
	n := DefaultLimits.MaxFiles - 3 // and the files the command writes
	for _, row := range []struct {
		name             string
		git              bool
		pathLen, textLen int
	}{
		{"git", true, 0, 0},
		{"dir", false, 0, 0},
		{"dir-long", false, maxPathBytes / DefaultLimits.MaxFiles, int(DefaultLimits.MaxCopyBytes) / DefaultLimits.MaxFiles},
	} {
		b.Run(fmt.Sprintf("%s-%d", row.name, n), func(b *testing.B) {
			dir := shapedTree(b, n, row.git, row.pathLen, row.textLen)
			var peak, held, takePeak int64
			round := 0
			for b.Loop() {
				b.StopTimer()
				base := heap()
				stopTake := peakSampler()
				s := Take(bg, dir, DefaultLimits)
				takePeak = max(takePeak, int64(stopTake())-int64(base))
				held = max(held, int64(heap())-int64(base))
				round++
				handful(b, dir, round)
				runtime.GC()
				stop := peakSampler()
				b.StartTimer()
				r := s.Changes(bg)
				b.StopTimer()
				top := stop()
				peak = max(peak, int64(top)-int64(base))
				if len(r.Files) == 0 || r.Note != "" {
					b.Fatalf("report %+v", r)
				}
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(held)/(1<<20), "held-MB")
			b.ReportMetric(float64(takePeak)/(1<<20), "take-peak-MB")
		})
	}
}
