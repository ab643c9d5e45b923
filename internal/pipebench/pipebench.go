// Package pipebench measures a relay between OS pipes, as the proxy runs
// between an editor and an agent, for the relay benchmarks of proxy and
// cmd/acp-proxy.
package pipebench

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Result is what one run measured, per op.
type Result struct {
	NsPerOp  float64 // wall time
	CPUPerOp float64 // the process's CPU time, all goroutines
	In, Out  int64   // the bytes sent into the relay, and out of it
}

// Run runs relay over OS pipes: a writer goroutine sends head, then b.N
// copies of line; a reader goroutine drains the other end, which must
// receive at least as many bytes (a filter may add some). Besides the
// time, it reports the process's CPU time per line (cpu-ns/op: user and
// system, all goroutines, the writer and the reader included), which a
// machine busy with other work inflates far less than the time.
func Run(b *testing.B, head, line []byte, relay func(dst io.Writer, src io.Reader) error) Result {
	b.SetBytes(int64(len(line)))
	r := RunOps(b, head, func(w *bufio.Writer, _ int) int {
		n, _ := w.Write(line)
		return n
	}, relay)
	require.GreaterOrEqual(b, r.Out, r.In, "relayed %d bytes, want at least %d", r.Out, r.In)
	return r
}

// RunOps is Run with op i written by op, which returns the bytes it wrote
// (ops may differ: a snapshot that grows, a call of its own). The caller
// sets the bytes per op (b.SetBytes) if it wants MB/s, and checks what
// came out (Result.In and Out): a filter may shrink what it passes.
func RunOps(b *testing.B, head []byte, op func(w *bufio.Writer, i int) int, relay func(dst io.Writer, src io.Reader) error) Result {
	inR, inW, err := os.Pipe()
	require.NoError(b, err)
	outR, outW, err := os.Pipe()
	require.NoError(b, err)
	b.ReportAllocs()
	drained := make(chan int64)
	go func() {
		n, _ := io.Copy(io.Discard, outR)
		drained <- n
	}()
	sent := make(chan int64, 1)
	go func() {
		w := bufio.NewWriterSize(inW, 1<<20)
		n, _ := w.Write(head)
		total := int64(n)
		for i := range b.N {
			total += int64(op(w, i))
		}
		w.Flush()
		inW.Close()
		sent <- total
	}()
	runtime.GC() // the garbage of what ran before is not this run's to collect
	b.ResetTimer()
	cpu0 := CPUTime()
	require.NoError(b, relay(outW, inR))
	outW.Close()
	n, want := <-drained, <-sent
	cpu := float64(CPUTime()-cpu0) / float64(b.N)
	b.StopTimer()
	b.ReportMetric(cpu, "cpu-ns/op")
	inR.Close()
	outR.Close()
	return Result{NsPerOp: float64(b.Elapsed().Nanoseconds()) / float64(b.N), CPUPerOp: cpu, In: want, Out: n}
}

// CopyLoop is the baseline: the bare 32 KiB copy loop io.Copy falls back to
// for pipes.
func CopyLoop(dst io.Writer, src io.Reader) error {
	return copyLoop(dst, src, 32<<10)
}

// Bare is the floor of the proxy's speed goals: a byte-copying relay with
// 64 KiB buffers, the size of the proxy's own.
func Bare(dst io.Writer, src io.Reader) error {
	return copyLoop(dst, src, 64<<10)
}

func copyLoop(dst io.Writer, src io.Reader, size int) error {
	_, err := io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, make([]byte, size))
	return err
}

// Floor keeps a floor's figures of the run (the last of its benchmark's
// calibration rounds, which is the one reported) and reports later runs
// as ratios to it: x-bare (time) and x-bare-cpu (CPU time), per op.
type Floor struct{ floor Result }

// Set records r as the floor.
func (f *Floor) Set(r Result) { f.floor = r }

// Report reports r as ratios to the floor, if one was measured.
func (f *Floor) Report(b *testing.B, r Result) {
	if f.floor.NsPerOp > 0 {
		b.ReportMetric(r.NsPerOp/f.floor.NsPerOp, "x-bare")
	}
	if f.floor.CPUPerOp > 0 {
		b.ReportMetric(r.CPUPerOp/f.floor.CPUPerOp, "x-bare-cpu")
	}
}

// Percentile is the p-th percentile (0–100) of ds, which it sorts.
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}
