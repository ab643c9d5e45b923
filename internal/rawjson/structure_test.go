package rawjson

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// long is a run of bytes that makes the string it opens a long one.
var long = strings.Repeat("x", LongString)

func TestSkipStructureLeavesOnlyLongStringsUnchecked(t *testing.T) {
	cases := []struct {
		name      string
		doc       string
		valid     bool // SkipStructure succeeds
		unchecked int
	}{
		{"short strings are checked", `{"a":"\x"}`, false, 0},
		{"a short control character is checked", "{\"a\":\"\t\"}", false, 0},
		{"a long valid string", `{"a":"` + long + `\n"}`, true, 1},
		{"a long string's bad escape is left", `{"a":"` + long + `\x"}`, true, 1},
		{"a long string's control character is left", "{\"a\":\"" + long + "\t\"}", true, 1},
		{"none of a long string is checked", `{"a":"\x` + long + `"}`, true, 1},
		{"escaped quotes do not end it", `{"a":"` + long + `\"\\\"","b":1}`, true, 1},
		{"an even run of backslashes does", `{"a":"` + long + `\\\\","b":1}`, true, 1},
		{"unterminated", `{"a":"` + long + `\"}`, false, 0},
		{"keys are always checked", `{"` + long + `\x":1}`, false, 0},
		{"in arrays too", `[1,"` + long + `\x",{"b":["` + long + `"]}]`, true, 2},
		{"structure after it is checked", `{"a":"` + long + `",}`, false, 1},
		{"numbers are checked", `{"a":"` + long + `","b":01}`, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := []byte(c.doc)
			n := 0
			end, err := SkipStructure(doc, 0, &n)
			if c.valid {
				assert.NoError(t, err)
				assert.Equal(t, len(doc), end)
			} else {
				assert.Error(t, err)
			}
			assert.Equal(t, c.unchecked, n)
			if vend, verr := SkipValue(doc, 0); verr == nil {
				assert.Equal(t, vend, end, "a valid document ends where SkipValue says")
			}
		})
	}
}

// FuzzSkipStructure checks SkipStructure against SkipValue on any input,
// as it comes and with every quote opening a long run (so its strings are
// long ones): it accepts every valid document and ends it in the same
// place, and rejects what SkipValue rejects unless a string it left
// unchecked could be the reason.
func FuzzSkipStructure(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":"\\","b":["\"",1]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, doc := range [][]byte{b, bytes.ReplaceAll(b, []byte(`"`), []byte(`"`+long))} {
			n := 0
			end, err := SkipStructure(doc, 0, &n)
			vend, verr := SkipValue(doc, 0)
			if verr == nil {
				require.NoError(t, err, "SkipStructure(%q) rejects what SkipValue accepts", doc)
				require.Equal(t, vend, end, "SkipStructure(%q) ends elsewhere than SkipValue", doc)
			}
			if n == 0 {
				require.Equal(t, verr == nil, err == nil, "SkipStructure(%q) checked every string but says %v; SkipValue says %v", doc, err, verr)
				if err == nil {
					require.Equal(t, vend, end, "SkipStructure(%q)", doc)
				}
			}
		}
	})
}
