package rawjson

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContainsAgreesWithBytesContains(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"_meta":{"data":"`
	for _, c := range []struct{ b, sep string }{
		{line + `x"}}}}`, `"execute"`},
		{line + `x","kind":"execute"}}}`, `"execute"`},
		{line + strings.Repeat(`\"q`, 2000) + `"execute"`, `"execute"`}, // past the false starts
		{line + strings.Repeat(`\"q`, 2000) + `"executE"`, `"execute"`},
		{`"execute`, `"execute"`}, {`"`, `"x`}, {``, `"x`}, {`ab`, `b`}, {`ab`, ``},
		// Around the end of the bytes looked at one by one (indexNear).
		{strings.Repeat("a", 15) + `"x`, `"x`}, {strings.Repeat("a", 16) + `"x`, `"x`}, {strings.Repeat("a", 17) + `"x`, `"x`},
		{strings.Repeat(`"a`, 9) + `"x`, `"x`}, {strings.Repeat("a", 16) + `"`, `"x`},
	} {
		assert.Equal(t, bytes.Contains([]byte(c.b), []byte(c.sep)), Contains([]byte(c.b), []byte(c.sep)), "Contains(…%q, %q)", c.b[max(0, len(c.b)-20):], c.sep)
	}
	// Across the end of the head searched as structure.
	for n := structureHead - 12; n <= structureHead+2; n++ {
		for _, c := range []struct{ b, sep string }{
			{strings.Repeat(`"q`, n/2) + strings.Repeat("a", n%2) + `"execute"`, `"execute"`},
			{strings.Repeat("a", n) + `"execute"` + strings.Repeat("b", 300), `"execute"`},
			{strings.Repeat("a", n) + `"executE"` + strings.Repeat("b", 300), `"execute"`},
		} {
			assert.Equal(t, bytes.Contains([]byte(c.b), []byte(c.sep)), Contains([]byte(c.b), []byte(c.sep)), "at %d: Contains(…%q, %q)", n, c.b[max(0, len(c.b)-20):], c.sep)
		}
	}
}

func FuzzContains(f *testing.F) {
	f.Add([]byte(`{"a":"\"execute\"","kind":"execute"}`), []byte(`"execute"`))
	f.Fuzz(func(t *testing.T, b, sep []byte) {
		require.Equal(t, bytes.Contains(b, sep), Contains(b, sep), "Contains(%q, %q)", b, sep)
	})
}
