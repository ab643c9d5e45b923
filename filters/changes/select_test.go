package changes

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// bigFiles writes n files of size bytes of text each, named f000…
func bigFiles(t *testing.T, dir string, n, size int) {
	t.Helper()
	sh(t, dir, fmt.Sprintf(`for i in $(seq -w 0 %d); do head -c %d /dev/zero | tr '\0' x > f$i; done`, n-1, size))
}

// allocated is what fn allocates, in bytes.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A command that wrote a hundred files costs the reading of the few the
// update shows: 100 new files of 256 KiB (25 MiB), 5 shown.
func TestOnlyTheFilesShownAreRead(t *testing.T) {
	lim := Limits{MaxFileBytes: 1 << 20, MaxCopyBytes: 16 << 20, MaxFiles: 10_000, MaxShown: 5}
	for _, git := range []bool{true, false} {
		dir := tree{files: map[string]string{"a": "a\n"}, git: git}.make(t)
		snap := Take(bg, dir, lim)
		bigFiles(t, dir, 100, 256<<10)
		var r Report
		n := allocated(func() { r = snap.Changes(bg) })
		snap.Close()
		if len(r.Files) != 5 || r.More != 95 {
			t.Fatalf("git %v: %d files listed, %d more; want 5 and 95", git, len(r.Files), r.More)
		}
		t.Logf("git %v: %.1f MiB allocated", git, float64(n)/(1<<20))
		if n > 8<<20 { // the 5 shown, read and said twice (before the JSON), are 2.5 MiB
			t.Errorf("git %v: %.1f MiB allocated to show 5 files of 256 KiB", git, float64(n)/(1<<20))
		}
	}
}

// The text of one update is bounded: past Limits.MaxCopyBytes, a change is
// listed without its diff, saying why.
func TestAnUpdatesTextIsBounded(t *testing.T) {
	lim := Limits{MaxFileBytes: 1 << 20, MaxCopyBytes: 1 << 20, MaxFiles: 10_000, MaxShown: 10}
	for _, git := range []bool{true, false} {
		dir := tree{files: map[string]string{"a": "a\n"}, git: git}.make(t)
		bigFiles(t, dir, 3, 300<<10)
		if git {
			sh(t, dir, "git add -A && git -c user.email=t@t -c user.name=t commit -qm big")
		}
		snap := Take(bg, dir, lim)
		sh(t, dir, "for f in f*; do echo more >> $f; done")
		r := snap.Changes(bg)
		snap.Close()
		var diffs, leftOut int
		for _, c := range r.Files {
			switch {
			case c.New != nil:
				diffs++
			case strings.HasPrefix(c.Why, "its diff is left out: one update holds at most 1 MiB of text"):
				leftOut++
			}
		}
		if diffs != 1 || leftOut != 2 {
			var whys []string
			for _, c := range r.Files {
				whys = append(whys, c.Why)
			}
			t.Errorf("git %v: %d diffs and %d left out, want 1 and 2: %q", git, diffs, leftOut, whys)
		}
	}
}
