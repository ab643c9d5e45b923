package output

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStreamRestIsWhatRawOutputHoldsPastTheStream(t *testing.T) {
	tests := []struct {
		name     string
		streamed []string // JSON string bytes, as the agent sent them
		limit    int64
		final    string // rawOutput's text, as JSON string bytes
		want     string // the rest, as JSON string bytes; "" for none
	}{
		{"escaped alike: the bytes past the stream", []string{`a\n`, `b\n`}, 1 << 20, `a\nb\nc\n`, `c\n`},
		{"nothing more", []string{`a\n`}, 1 << 20, `a\n`, ""},
		{"not a prefix", []string{`a\n`}, 1 << 20, `x\ny\n`, ""},
		{"escaped otherwise: decoded and compared", []string{`\u003c`, `b`}, 1 << 20, `<bc`, `c`},
		{"escaped otherwise, not a prefix", []string{`\u003c`}, 1 << 20, `>bc`, ""},
		{"the stream ends inside an escape of rawOutput", []string{`a\u00`}, 1 << 20, `a\u0041b`, ""},
		{"past the limit, escaped alike: still exact", []string{`0123456789`, `abc`}, 4, `0123456789abcdef`, `def`},
		{"past the limit, escaped otherwise: left alone", []string{`\u0030123456789`}, 4, `0123456789def`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stream
			for _, e := range tt.streamed {
				s.add([]byte(e), tt.limit, false)
			}
			assert.Equal(t, tt.want, string(s.rest([]byte(tt.final))))
		})
	}
}

func TestStreamKeepsAtMostLimitDecodedBytes(t *testing.T) {
	tests := []struct {
		name     string
		streamed []string
		limit    int64
		kept     string // JSON string bytes
		dropped  int    // decoded bytes
	}{
		{"all fits", []string{`ab`, `cd`}, 4, `abcd`, 0},
		{"escapes count once decoded", []string{`a\nb\n`}, 4, `a\nb\n`, 0},
		{"cut before an escape that does not fit", []string{`ab\u00e9cd`}, 3, `ab`, 4},
		{"cut between characters, never in an escape", []string{`ab\u00e9cd`}, 4, `ab\u00e9`, 2},
		{"a surrogate pair is one character", []string{`a\ud83d\ude00b`}, 3, `a`, 5},
		{"UTF-8 is cut at a rune start", []string{"aé", "b"}, 2, `a`, 3},
		{"later output is counted, not kept", []string{`abcd`, `ef\n`}, 4, `abcd`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stream
			for _, e := range tt.streamed {
				s.add([]byte(e), tt.limit, true)
			}
			assert.Equal(t, tt.kept, string(s.kept))
			assert.Equal(t, tt.dropped, s.dropped)
		})
	}
}
