package rawjson

import "testing"

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
		if end := TrustedSkip(doc, 0); skipSpace(doc, end) != len(doc) {
			t.Fatalf("TrustedSkip(%q) = %d", doc, end)
		}
		if doc[skipSpace(doc, 0)] == '{' {
			if end := TrustedWalk(doc, func(_ []byte, vs int) (int, bool) { return TrustedSkip(doc, vs), true }); skipSpace(doc, end) != len(doc) {
				t.Fatalf("TrustedWalk(%q) = %d", doc, end)
			}
		}
		var want, got []string
		if Members(doc, func(k, v []byte) bool { want = append(want, string(k), string(v)); return true }) == nil {
			TrustedMembers(doc, func(k, v []byte) bool { got = append(got, string(k), string(v)); return true })
			if !equalStrings(want, got) {
				t.Fatalf("members of %q: trusted %q, rawjson %q", doc, got, want)
			}
		}
		want, got = nil, nil
		if Elements(doc, func(_ int, el []byte) bool { want = append(want, string(el)); return true }) == nil {
			TrustedElements(doc, func(el []byte) bool { got = append(got, string(el)); return true })
			if !equalStrings(want, got) {
				t.Fatalf("elements of %q: trusted %q, rawjson %q", doc, got, want)
			}
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
