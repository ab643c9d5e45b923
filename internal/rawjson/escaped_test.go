package rawjson

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscapeAndUnescape(t *testing.T) {
	for _, s := range []string{"", "a", "a\nb", `"\`, "<é>", "\x00\x1f", "😀"} {
		esc := Escape(s)
		assert.Equal(t, string(Quote(s)), `"`+string(esc)+`"`, "Quote without the quotes")
		assert.Equal(t, string(Quote(s)), string(Enclose(esc)))
		back, err := Unescape(esc)
		require.NoError(t, err)
		assert.Equal(t, s, back)
	}
	_, err := Unescape([]byte(`a\x`))
	assert.Error(t, err, "an escape JSON does not have")
}

func TestTrimNewlinesTrimsEscapedNewlinesOnly(t *testing.T) {
	for in, want := range map[string]string{
		`a\n\n`:         `a`,
		`a\u000a\n`:     `a`,
		`a\\n`:          `a\\n`, // a backslash and an n
		`a\\\n`:         `a\\`,
		`a`:             `a`,
		`\n`:            ``,
		`a\u000A\u000a`: `a`,
	} {
		assert.Equal(t, want, string(TrimNewlines([]byte(in))), in)
	}
}

func TestCharBoundaryNeverCutsAnEscapeOrARune(t *testing.T) {
	for _, tc := range []struct {
		esc  string
		n    int
		want int
	}{
		{`abc`, 2, 2},
		{`a\nb`, 2, 1},          // inside \n
		{`a\nb`, 3, 3},          // after it
		{`a\u00e9b`, 4, 1},      // inside \u00e9
		{`a\u00e9b`, 7, 7},      // after it
		{`a\\nb`, 3, 3},         // after an escaped backslash, before an n
		{"aéb", 2, 1},           // inside é's UTF-8
		{`a\ud83d\ude00`, 9, 7}, // inside the second half of a pair: before it
		{`ab`, 5, 2},            // past the end
	} {
		assert.Equal(t, tc.want, CharBoundary([]byte(tc.esc), tc.n), "%s at %d", tc.esc, tc.n)
	}
}

func TestDecodedLengths(t *testing.T) {
	for _, tc := range []struct {
		esc      string
		decoded  int
		newlines int
	}{
		{`abc`, 3, 0},
		{`a\nb\u000a`, 4, 2},
		{`\u00e9`, 2, 0},
		{`\ud83d\ude00`, 4, 0}, // a pair: one 4-byte rune
		{`\ud83d`, 3, 0},       // alone: U+FFFD
		{`\\n`, 2, 0},          // a backslash and an n
		{"é", 2, 0},
	} {
		assert.Equal(t, tc.decoded, DecodedLen([]byte(tc.esc)), tc.esc)
		assert.Equal(t, tc.newlines, CountNewlines([]byte(tc.esc)), tc.esc)
	}
}

func TestCutDecodedKeepsWholeCharacters(t *testing.T) {
	for _, tc := range []struct {
		esc    string
		room   int
		cut, n int
	}{
		{`abcd`, 2, 2, 2},
		{`ab\u00e9cd`, 3, 2, 2},
		{`ab\u00e9cd`, 4, 8, 4},
		{`a\ud83d\ude00b`, 3, 1, 1},
		{`a\ud83d\ude00b`, 5, 13, 5},
		{"aé", 2, 1, 1},
		{`a\nb`, 10, 4, 3},
	} {
		cut, n := CutDecoded([]byte(tc.esc), tc.room)
		assert.Equal(t, [2]int{tc.cut, tc.n}, [2]int{cut, n}, "%s in %d", tc.esc, tc.room)
	}
}

func TestTailLinesStartsAtALine(t *testing.T) {
	for _, tc := range []struct {
		esc    string
		budget int
		want   string
	}{
		{`a\nb`, 10, `a\nb`},             // all fits
		{`one\ntwo\nthree`, 9, `three`},  // the line that starts within the budget
		{`one\ntwo\nthree`, 10, `three`}, // the first line start in it, even at its start
		{`abcdef`, 3, `def`},             // no line start: between characters
		{`ab\\ncd`, 4, `\\ncd`},          // an escaped backslash and an n start no line
		{`abc\u00e9`, 4, `\u00e9`},       // never inside an escape
	} {
		assert.Equal(t, tc.want, string(TailLines([]byte(tc.esc), tc.budget)), "%s in %d", tc.esc, tc.budget)
	}
}

func TestHighSurrogateTail(t *testing.T) {
	for esc, want := range map[string]int{
		`a\ud83d`:      6,
		`a\uD83D`:      6,
		`a\udbff`:      6,
		`a\udc00`:      0, // a low surrogate
		`a\\ud83d`:     0, // a backslash, then text
		`\ud83d\ude00`: 0,
		`d83d`:         0,
	} {
		assert.Equal(t, want, HighSurrogateTail([]byte(esc)), esc)
	}
}

// FuzzEscaped: for any valid escaped string bytes, a cut at a character boundary leaves two
// valid halves, CutDecoded fits its room, and the newlines counted and trimmed are the decoded
// string's.
func FuzzEscaped(f *testing.F) {
	for _, s := range []string{`a\nb`, `\u00e9\u000A`, `\ud83d\ude00x\n`, "é\\\\n", `\"\/\b\f\r\t`, `a\ud800\u0041`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		esc := []byte(s)
		text, err := Unescape(esc)
		if err != nil || !utf8.ValidString(s) {
			return
		}
		n = max(0, n%(len(esc)+2))
		b := CharBoundary(esc, n)
		require.LessOrEqual(t, b, max(n, 0))
		require.True(t, Valid(Enclose(esc[:b])), "%q cut at %d", s, b)
		require.True(t, Valid(Enclose(esc[b:])), "%q cut at %d", s, b)
		cut, got := CutDecoded(esc, n)
		require.LessOrEqual(t, got, n)
		require.Equal(t, DecodedLen(esc[:cut]), got)
		require.True(t, Valid(Enclose(esc[:cut])))
		tail := TailLines(esc, n)
		require.True(t, strings.HasSuffix(s, string(tail)))
		require.True(t, Valid(Enclose(tail)), "the tail of %q in %d", s, n)
		require.Equal(t, strings.Count(text, "\n"), CountNewlines(esc))
		trimmed, err := Unescape(TrimNewlines(esc))
		require.NoError(t, err)
		require.Equal(t, strings.TrimRight(text, "\n"), trimmed)
		back, err := Unescape(Escape(text))
		require.NoError(t, err)
		require.Equal(t, text, back)
	})
}
