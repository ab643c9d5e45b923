// Package pipebench measures a relay between OS pipes, as the proxy runs
// between an editor and an agent, for the relay benchmarks of proxy and
// cmd/acp-proxy.
package pipebench

import (
	"bufio"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Run runs relay over OS pipes: a writer goroutine sends head, then b.N
// copies of line; a reader goroutine drains the other end, which must
// receive at least as many bytes (a filter may add some). Besides the
// time, it reports the process's CPU time per line (cpu-ns/op: user and
// system, all goroutines, the writer and the reader included), which a
// machine busy with other work inflates far less than the time.
func Run(b *testing.B, head, line []byte, relay func(dst io.Writer, src io.Reader) error) {
	inR, inW, err := os.Pipe()
	require.NoError(b, err)
	outR, outW, err := os.Pipe()
	require.NoError(b, err)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	drained := make(chan int64)
	go func() {
		n, _ := io.Copy(io.Discard, outR)
		drained <- n
	}()
	go func() {
		w := bufio.NewWriterSize(inW, 1<<20)
		w.Write(head)
		for range b.N {
			w.Write(line)
		}
		w.Flush()
		inW.Close()
	}()
	b.ResetTimer()
	cpu0 := CPUTime()
	require.NoError(b, relay(outW, inR))
	outW.Close()
	n, want := <-drained, int64(len(head)+b.N*len(line))
	require.GreaterOrEqual(b, n, want, "relayed %d bytes, want at least %d", n, want)
	b.ReportMetric(float64(CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
	inR.Close()
	outR.Close()
}

// CopyLoop is the baseline: the bare 32 KiB copy loop io.Copy falls back to
// for pipes.
func CopyLoop(dst io.Writer, src io.Reader) error {
	_, err := io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, make([]byte, 32<<10))
	return err
}
