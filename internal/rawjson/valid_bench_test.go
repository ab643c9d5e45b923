package rawjson

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/pipebench"
)

// logLines is about n bytes of build-log lines as a JSON string: an escape
// (\t, \n) every 30 bytes or so, as command output streams.
func logLines(n int) []byte {
	var s strings.Builder
	for i := 0; s.Len() < n; i++ {
		s.WriteString("cc -O2 -c src/module_")
		s.WriteString(strings.Repeat("x", i%40))
		s.WriteString(".c -o build/module.o\t[ok]\n")
	}
	return Quote(s.String())
}

func BenchmarkValidString(b *testing.B) {
	for _, c := range []struct {
		name string
		doc  []byte
	}{
		{"log-10KB", logLines(10 << 10)},
		{"plain-10KB", Quote(strings.Repeat("abcdefghij", 1<<10))},
		{"escapes-10KB", Quote(strings.Repeat("\"\\\n\t\u00e9", 1<<10))},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.doc)))
			cpu0 := pipebench.CPUTime()
			for b.Loop() {
				require.True(b, Valid(c.doc))
			}
			b.ReportMetric(float64(pipebench.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
