package linediff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStreams(t *testing.T) {
	assert.Equal(t, "", Streams([]byte("a\nb\n"), []byte("a\nb\n")))
	assert.Equal(t, "differs at line 2 (of 3 wanted, 3 got):\nwant \"b\\n\"\n got \"c\\n\"", Streams([]byte("a\nb\n"), []byte("a\nc\n")))
	assert.Contains(t, Streams([]byte("a\n"), []byte("a\nextra\n")), `got "extra\n"`)
	assert.Contains(t, First([][]byte{[]byte("a")}, [][]byte{[]byte("a"), []byte("b")}), "want (no line)")
	assert.Contains(t, Streams([]byte(strings.Repeat("x", 5000)), []byte("y")), "…[4400 bytes]…")
}
