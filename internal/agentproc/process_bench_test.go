//go:build unix

package agentproc

import (
	"context"
	"io"
	"os/exec"
	"testing"
)

// BenchmarkSession is what the reaper costs a session: starting an agent
// (true) through a Process and seeing it out, against running the same
// program with nothing between (os/exec alone) in the same run.
func BenchmarkSession(b *testing.B) {
	b.Run("os-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("process", func(b *testing.B) {
		for b.Loop() {
			p, err := Start(context.Background(), Agent{Argv: []string{"true"}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			read := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, p.Stdout()); close(read) }()
			if status := p.Wait(nil, read); status != 0 {
				b.Fatalf("status %d", status)
			}
		}
	})
}
