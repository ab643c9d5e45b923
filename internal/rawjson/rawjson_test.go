package rawjson

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var validityCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `true`, `false`, `null`,
	`{"a":[1,{"b":null}],"c":"\u00e9\n"}`, ` { "a" : 1 } `, `12345678901234567890123`,
	`{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `01`, `1.`, `.5`, `-`, `1e`, `"\x"`, `"\u12"`,
	"\"a\tb\"", `tru`, `nul`, `{"a":1}{"b":2}`, `[1 2]`, `"unterminated`, ``, ` `,
	`{"a":"b"`, `[[[[]]]]`, `{"\ud800":1}`,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validityCases {
		assert.Equal(t, json.Valid([]byte(c)), Valid([]byte(c)), "%q", c)
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		require.Equal(t, json.Valid(b), Valid(b), "Valid(%q), against encoding/json", b)
	})
}

func TestGet(t *testing.T) {
	doc := []byte(`{"params":{"update":{"sessionUpdate":"tool_call","x":[1]}},"id":7,"id":8}`)
	got, ok := Get(doc, "params", "update", "sessionUpdate")
	require.True(t, ok)
	assert.Equal(t, `"tool_call"`, string(got))
	got, ok = Get(doc, "id")
	require.True(t, ok)
	assert.Equal(t, `8`, string(got), "the last duplicate wins, as in JavaScript")
	_, ok = Get(doc, "params", "nope")
	assert.False(t, ok)
	_, ok = Get(doc, "params", "update", "x", "y")
	assert.False(t, ok, "arrays have no keys")
	s, ok := GetString([]byte(`{"m\u0065thod":"a\"b"}`), "method")
	require.True(t, ok)
	assert.Equal(t, `a"b`, s)
}

func TestSet(t *testing.T) {
	cases := []struct {
		doc  string
		path []string
		val  string
		want string
	}{
		{`{"a":1}`, []string{"a"}, `2`, `{"a":2}`},
		{`{"a":1}`, []string{"b"}, `true`, `{"a":1,"b":true}`},
		{`{ }`, []string{"b"}, `true`, `{ "b":true}`},
		{`{"x":{"y":1} , "z":0}`, []string{"x", "m", "n"}, `"v"`, `{"x":{"y":1,"m":{"n":"v"}} , "z":0}`},
		{`{"p":{"c":{"fs":{},"_meta":{"k":1}}}}`, []string{"p", "c", "_meta", "t"}, `true`, `{"p":{"c":{"fs":{},"_meta":{"k":1,"t":true}}}}`},
		{`{"n":1e400,"u":"\u00e9"}`, []string{"a"}, `[]`, `{"n":1e400,"u":"\u00e9","a":[]}`},
	}
	for _, c := range cases {
		got, err := Set([]byte(c.doc), []byte(c.val), c.path...)
		require.NoError(t, err, c.doc)
		assert.Equal(t, c.want, string(got), c.doc)
	}
	_, err := Set([]byte(`{"a":null}`), []byte(`1`), "a", "b")
	assert.Error(t, err, "null on the way is not an object")
	_, err = Set([]byte(`{"a":`), []byte(`1`), "b")
	assert.Error(t, err)
}

func TestDelete(t *testing.T) {
	cases := []struct{ doc, key, want string }{
		{`{"a":1,"b":2,"c":3}`, "b", `{"a":1,"c":3}`},
		{`{"a":1,"b":2,"c":3}`, "a", `{"b":2,"c":3}`},
		{`{"a":1,"b":2,"c":3}`, "c", `{"a":1,"b":2}`},
		{`{ "a" : 1 }`, "a", `{  }`},
		{`{"a":1}`, "z", `{"a":1}`},
	}
	for _, c := range cases {
		got, _, err := Delete([]byte(c.doc), c.key)
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got), c.doc)
		assert.True(t, json.Valid(got))
	}
	got, ok, err := Delete([]byte(`{"m":{"terminal_info":{},"k":1}}`), "m", "terminal_info")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, `{"m":{"k":1}}`, string(got))
}

func TestQuoteRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c", "tab\tnl\ncr\r\x00\x1f", "<&>", "é世界", "\u2028"} {
		var back string
		require.NoError(t, json.Unmarshal(Quote(s), &back))
		assert.Equal(t, s, back)
		u, err := Unquote(Quote(s))
		require.NoError(t, err)
		assert.Equal(t, s, u)
	}
	assert.Equal(t, `"<&>"`, string(Quote("<&>")), "no HTML escaping")
	assert.Equal(t, `"\ufffd"`, string(Quote("\xff")))
}

// FuzzSetDelete checks that splicing agrees with decoding, editing and
// re-encoding, on any document the fuzzer finds.
func FuzzSetDelete(f *testing.F) {
	f.Add([]byte(`{"a":{"b":1},"c":[]}`), "a", "b")
	f.Add([]byte(`{}`), "x", "y")
	f.Add([]byte(`{"a":null}`), "a", "z")
	f.Fuzz(func(t *testing.T, doc []byte, k1, k2 string) {
		var before map[string]any
		if !utf8.ValidString(k1) || !utf8.ValidString(k2) {
			return // a key is always text; map keys would not round-trip
		}
		if json.Unmarshal(doc, &before) != nil || !Valid(doc) {
			return
		}
		out, err := Set(doc, []byte(`"v"`), k1, k2)
		if err == nil {
			var after map[string]any
			require.NoError(t, json.Unmarshal(out, &after), "Set made invalid JSON %q from %q", out, doc)
			inner, _ := before[k1].(map[string]any)
			if inner == nil {
				inner = map[string]any{}
			}
			inner[k2] = "v"
			before[k1] = inner
			require.True(t, reflect.DeepEqual(before, after), "Set(%q) = %q", doc, out)
		}
		var again map[string]any
		_ = json.Unmarshal(doc, &again)
		out, _, err = Delete(doc, k1)
		require.NoError(t, err, "Delete")
		var after map[string]any
		require.NoError(t, json.Unmarshal(out, &after), "Delete made invalid JSON %q from %q", out, doc)
		delete(again, k1)
		require.True(t, reflect.DeepEqual(again, after), "Delete(%q, %q) = %q", doc, k1, out)
	})
}
