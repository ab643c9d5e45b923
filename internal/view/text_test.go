package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// A text is kept whole while it is small, and otherwise shown as its first
// and last lines with an exact account of what is left out.
func TestMakeText(t *testing.T) {
	for _, c := range []struct {
		name            string
		in              string
		whole           bool
		lines           int64
		head, tail      string // what the shown part starts and ends with
		omittedLines    int64
		omittedBytesMin int64
	}{
		{"empty", "", true, 0, "", "", 0, 0},
		{"no final newline", "a\nb", true, 2, "a\n", "b", 0, 0},
		{"300 lines", numbered(300), true, 300, "line 1\n", "line 300\n", 0, 0},
		{"900 short lines", numbered(900), false, 900, "line 1\nline 2\n", "line 899\nline 900\n", 900 - 2*edgeLines, 6000},
		{"35,001 lines", numbered(35001), false, 35001, "line 1\nline 2\n", "line 35000\nline 35001\n", 35001 - 2*edgeLines, 300_000},
		{"one huge line", strings.Repeat("x", 100_000), false, 1, "xxx", "xxx", 0, 100_000 - 2*edgeBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := makeText([]byte(c.in))
			assert.Equal(t, int64(len(c.in)), got.Bytes)
			assert.Equal(t, c.lines, got.Lines)
			if c.whole {
				assert.Equal(t, c.in, got.Text)
				assert.Empty(t, got.Tail)
				return
			}
			assert.True(t, strings.HasPrefix(got.Text, c.head), "head %q", got.Text[:20])
			assert.True(t, strings.HasSuffix(got.Tail, c.tail), "tail ends %q", got.Tail[max(0, len(got.Tail)-20):])
			assert.LessOrEqual(t, len(got.Text), edgeBytes)
			assert.LessOrEqual(t, len(got.Tail), edgeBytes)
			assert.Equal(t, c.omittedLines, got.OmittedLines)
			assert.GreaterOrEqual(t, got.OmittedBytes, c.omittedBytesMin)
			assert.Equal(t, got.Bytes, int64(len(got.Text)+len(got.Tail))+got.OmittedBytes, "shown + omitted = all")
		})
	}
}

// Text accumulated piece by piece (terminal output deltas) reads the same
// as the whole text at once, however it was split.
func TestTextAccumulatedMatchesWhole(t *testing.T) {
	for _, n := range []int{0, 5, 299, 900, 35001} {
		whole := numbered(n)
		for _, piece := range []int{1, 7, 4096, 1 << 20} {
			t.Run(fmt.Sprintf("%d lines in %d-byte pieces", n, piece), func(t *testing.T) {
				var acc textAcc
				for i := 0; i < len(whole); i += piece {
					acc.write([]byte(whole[i:min(len(whole), i+piece)]))
				}
				if n == 0 {
					assert.Equal(t, Text{}, acc.text())
					return
				}
				require.Equal(t, makeText([]byte(whole)), acc.text())
			})
		}
	}
}

// Raw messages keep their structure and key order; only long strings are
// cut, and they say so.
func TestElideJSON(t *testing.T) {
	long := numbered(2000)
	in := `{"b":1, "a":[true,null,"short"], "c":{"text":` + string(quote(long)) + `}}`
	got := string(elideJSON([]byte(in)))
	assert.True(t, strings.HasPrefix(got, `{"b":1,"a":[true,null,"short"],"c":{"text":"line 1\nline 2\n`), got[:80])
	assert.Contains(t, got, `[… acp-proxy view: 1920 lines`)
	assert.True(t, strings.HasSuffix(got, `line 2000\n"}}`), got[len(got)-40:])
	assert.Less(t, len(got), 2*edgeBytes+200)
	assert.Nil(t, elideJSON([]byte(`{"a":`)), "invalid JSON is not elided into something else")
}

func quote(s string) []byte {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '\n':
			b = append(b, '\\', 'n')
		case '"', '\\':
			b = append(b, '\\', byte(r))
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}
