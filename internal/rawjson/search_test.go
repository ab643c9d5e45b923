package rawjson

import (
	"bytes"
	"strings"
	"testing"
)

func TestContainsAgreesWithBytesContains(t *testing.T) {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"_meta":{"data":"`
	for _, c := range []struct{ b, sep string }{
		{line + `x"}}}}`, `"execute"`},
		{line + `x","kind":"execute"}}}`, `"execute"`},
		{line + strings.Repeat(`\"q`, 2000) + `"execute"`, `"execute"`}, // past the false starts
		{line + strings.Repeat(`\"q`, 2000) + `"executE"`, `"execute"`},
		{`"execute`, `"execute"`}, {`"`, `"x`}, {``, `"x`}, {`ab`, `b`}, {`ab`, ``},
	} {
		if got, want := Contains([]byte(c.b), []byte(c.sep)), bytes.Contains([]byte(c.b), []byte(c.sep)); got != want {
			t.Errorf("Contains(…%q, %q) = %v, want %v", c.b[max(0, len(c.b)-20):], c.sep, got, want)
		}
	}
}

func FuzzContains(f *testing.F) {
	f.Add([]byte(`{"a":"\"execute\"","kind":"execute"}`), []byte(`"execute"`))
	f.Fuzz(func(t *testing.T, b, sep []byte) {
		if Contains(b, sep) != bytes.Contains(b, sep) {
			t.Fatalf("Contains(%q, %q) = %v", b, sep, Contains(b, sep))
		}
	})
}
