package changes

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// synthetic writes a tree of n small text files, 100 per folder, and, for
// git, commits them all.
func synthetic(b *testing.B, n int, git bool) string {
	return shapedTree(b, n, git, 0, 0)
}

// shapedTree is synthetic, each file's path padded to at least pathLen
// bytes and its text to textLen (0: as they come).
func shapedTree(b *testing.B, n int, git bool, pathLen, textLen int) string {
	b.Helper()
	dir := b.TempDir()
	pad := strings.Repeat("x", max(0, (pathLen-16)/2))
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%04d%s", i/100, pad))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		text := fmt.Sprintf("package p%d\n\n// file %d of the synthetic tree\nfunc F%d() int { return %d }\n", i, i, i, i)
		if len(text) < textLen {
			text += "//" + strings.Repeat("y", textLen-len(text)-3) + "\n"
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d%s.go", i, pad)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if git {
		cmd := exec.Command("bash", "-c", "git init -q && git add -A && git -c gc.auto=0 -c user.email=b@b -c user.name=b commit -qm tree && git status --porcelain >/dev/null")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	return dir
}

// handful changes three files of the synthetic tree, as a command would:
// two tracked files rewritten and one untracked file written (created in
// the first round).
func handful(b *testing.B, dir string, round int) {
	b.Helper()
	for i, p := range []string{"d0000/f1.go", "d0001/f150.go"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil { // a shapedTree's folders are named otherwise
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), fmt.Appendf(nil, "package p\n// round %d %d\n", round, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), fmt.Appendf(nil, "round %d\n", round), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkChanges measures one command's cost: taking the before-state
// when it starts ("take"), and the report once it ended with a handful of
// files changed ("report": the time from the call's end to its update),
// on synthetic trees of 10,000 and 100,000 files, in git and outside. The
// baselines are what the two ways cannot do without: git status of the
// same tree, and a bare walk of it. held-B is the heap a before-state keeps
// while its command runs.
func BenchmarkChanges(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, git := range []bool{true, false} {
			where := map[bool]string{true: "git", false: "dir"}[git]
			tree := sync.OnceValue(func() string { return synthetic(b, n, git) }) // only for the benchmarks run
			lim := DefaultLimits
			lim.MaxFiles = 200_000
			b.Run(fmt.Sprintf("%s-%d/baseline", where, n), func(b *testing.B) {
				dir := tree()
				for b.Loop() {
					if git {
						if _, err := gitStatus(bg, dir, ""); err != nil {
							b.Fatal(err)
						}
					} else {
						_ = filepath.WalkDir(dir, func(string, fs.DirEntry, error) error { return nil })
					}
				}
			})
			b.Run(fmt.Sprintf("%s-%d/take", where, n), func(b *testing.B) {
				dir := tree()
				before := heap()
				s := Take(bg, dir, lim)
				held := int64(heap()) - int64(before)
				s.Close()
				b.ReportAllocs()
				for b.Loop() {
					Take(bg, dir, lim).Close()
				}
				b.ReportMetric(float64(max(held, 0)), "held-B")
			})
			b.Run(fmt.Sprintf("%s-%d/report", where, n), func(b *testing.B) {
				dir := tree()
				b.ReportAllocs()
				round := 0
				for b.Loop() {
					b.StopTimer()
					s := Take(bg, dir, lim)
					round++
					handful(b, dir, round)
					b.StartTimer()
					r := s.Changes(bg)
					b.StopTimer()
					if len(r.Files) == 0 || r.Note != "" {
						b.Fatalf("report %+v", r)
					}
					s.Close()
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkChangesThisRepository takes the before-state of this module's
// own work tree and reports on it, changing nothing.
func BenchmarkChangesThisRepository(b *testing.B) {
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := Take(bg, root, DefaultLimits)
		s.Changes(bg)
		s.Close()
	}
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkReportOfManyNewFiles is a command that wrote 100 new files of
// 256 KiB, of which an update shows 5: the report reads those 5. The
// baseline, "read-all", reads the 100 as a report that read every changed
// file would (what it did before issue 36).
func BenchmarkReportOfManyNewFiles(b *testing.B) {
	lim := Limits{MaxFileBytes: 1 << 20, MaxCopyBytes: 16 << 20, MaxFiles: 10_000, MaxShown: 5}
	for _, git := range []bool{true, false} {
		where := map[bool]string{true: "git", false: "dir"}[git]
		dir := synthetic(b, 10, git)
		s := Take(bg, dir, lim)
		cmd := exec.Command("bash", "-c", `for i in $(seq -w 0 99); do head -c 262144 /dev/zero | tr '\0' x > new$i; done`)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		b.Run(where+"/read-all", func(b *testing.B) {
			d, err := beneath.OpenDir(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			b.ReportAllocs()
			for b.Loop() {
				for i := range 100 {
					readVersion(d, fmt.Sprintf("new%02d", i), lim.MaxFileBytes)
				}
			}
		})
		b.Run(where+"/report", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := s.Changes(bg); len(r.Files) != 5 || r.More != 95 {
					b.Fatalf("%d files, %d more", len(r.Files), r.More)
				}
			}
		})
		s.Close()
	}
}
