package rawjson

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var trustedCases = []string{
	`{}`, `[]`, `{"a":1}`, ` { "a" : [1, {"b":"c\"}"}] , "d":null,"e":true } `,
	`{"t":"x\\","u":"\\\"q\\\\"}`, `[1,-2.5e+3,"s",{"k":[]},[[]],false]`,
	`{"content":[{"type":"content","content":{"type":"text","text":"` + "```sh\\nline 1\\n```\\n" + `"}}]}`,
	`{"\u0074ype":"terminal"}`, `"just a string"`, `12`,
}

// FuzzTrusted checks the trusting walks against rawjson's validating ones on
// every valid document.
func FuzzTrusted(f *testing.F) {
	for _, c := range trustedCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !Valid(doc) {
			return
		}
		require.Equal(t, len(doc), skipSpace(doc, TrustedSkip(doc, 0)), "TrustedSkip(%q)", doc)
		if doc[skipSpace(doc, 0)] == '{' {
			end := TrustedWalk(doc, func(_ []byte, vs int) (int, bool) { return TrustedSkip(doc, vs), true })
			require.Equal(t, len(doc), skipSpace(doc, end), "TrustedWalk(%q)", doc)
		}
		var want, got []string
		if Members(doc, func(k, v []byte) bool { want = append(want, string(k), string(v)); return true }) == nil {
			TrustedMembers(doc, func(k, v []byte) bool { got = append(got, string(k), string(v)); return true })
			require.Equal(t, want, got, "members of %q: rawjson, trusted", doc)
		}
		want, got = nil, nil
		if Elements(doc, func(_ int, el []byte) bool { want = append(want, string(el)); return true }) == nil {
			TrustedElements(doc, func(el []byte) bool { got = append(got, string(el)); return true })
			require.Equal(t, want, got, "elements of %q: rawjson, trusted", doc)
		}
	})
}
