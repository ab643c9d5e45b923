package rawjson

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// ErrSyntax reports bytes that are not valid JSON.
var ErrSyntax = errors.New("rawjson: invalid JSON")

func syntaxErr(i int, what string) error {
	return fmt.Errorf("%w at offset %d: %s", ErrSyntax, i, what)
}

// IsSpace reports JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// TrimSpace returns b without leading and trailing JSON whitespace.
func TrimSpace(b []byte) []byte {
	for len(b) > 0 && IsSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && IsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipValue validates the JSON value starting at b[i] (after optional
// whitespace) and returns the index just past it.
func SkipValue(b []byte, i int) (int, error) {
	return skipValue(b, i, 0, nil)
}

// LongString is the length in bytes from which SkipStructure leaves a
// string's contents unchecked.
const LongString = 1 << 10

// SkipStructure is SkipValue for a first look at a large message: it
// validates everything but the contents of string values of more than
// LongString bytes, which it reads only for where they end (their first
// quote not escaped by a backslash), adding one to *unchecked for each. A
// reader of such a string's bytes checks them when it decodes them
// (Unquote does); Valid tells whether the whole value is valid. Object keys
// are always checked. Command output comes in strings of many kilobytes,
// an escape every line: checking their escapes is most of the cost of a
// validating pass, and a message that leaves unchanged never needs it.
func SkipStructure(b []byte, i int, unchecked *int) (int, error) {
	return skipValue(b, i, 0, unchecked)
}

// maxDepth bounds nesting so a hostile line cannot exhaust the stack.
const maxDepth = 10000

// skipValue skips the value at b[i]; unchecked is nil for a validating
// scan, else SkipStructure's count.
func skipValue(b []byte, i, depth int, unchecked *int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, syntaxErr(i, "unexpected end")
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i, unchecked)
	case c == '{':
		return skipObject(b, i, depth+1, unchecked)
	case c == '[':
		return skipArray(b, i, depth+1, unchecked)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(b, i)
	default:
		return i, syntaxErr(i, fmt.Sprintf("unexpected byte %q", c))
	}
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, syntaxErr(i, "bad literal")
	}
	return i + len(lit), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return start, syntaxErr(i, "bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return start, syntaxErr(i, "bad fraction")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return start, syntaxErr(i, "bad exponent")
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipString validates the string starting at b[i] == '"'.
//
// A string ends at its first unescaped quote. The scan finds the next
// quote with bytes.IndexByte (vectorised on amd64 and arm64), tests the
// bytes before it for control characters in one pass (no escape contains
// one), and then goes from backslash to backslash before it, again with
// IndexByte, to check each escape. Command output, an escape every few
// dozen bytes or long runs without one, so costs a fraction of a
// byte-by-byte scan.
//
// With unchecked non-nil, a string whose next quote is over LongString
// bytes on is only delimited (see SkipStructure).
func skipString(b []byte, i int, unchecked *int) (int, error) {
	start := i
	i++
	q := -1 // the first quote at or after i, once found
	for {
		if i > q { // not searched for yet, or the quote was escaped
			q = nextByte(b, i, len(b), '"')
			if unchecked != nil && q-start > LongString {
				return delimitString(b, q, unchecked)
			}
			if c := controlAt(b, i, q); c < q {
				return c, syntaxErr(c, "control character in string")
			}
		}
		j := backslashAt(b, i, q)
		switch {
		case j == len(b):
			return j, syntaxErr(j, "unterminated string")
		case j == q:
			return q + 1, nil
		}
		n := escapeLen(b, j)
		if n == 0 {
			return j, syntaxErr(j, "bad escape")
		}
		i = j + n
	}
}

// delimitString returns the index past the string whose first unescaped
// quote is at or after b[q] == '"' (or q == len(b)), and counts it in
// *unchecked.
func delimitString(b []byte, q int, unchecked *int) (int, error) {
	for q < len(b) && BackslashesBefore(b, q)%2 == 1 {
		q = nextByte(b, q+1, len(b), '"')
	}
	if q == len(b) {
		return q, syntaxErr(q, "unterminated string")
	}
	*unchecked++
	return q + 1, nil
}

// backslashAt is the index of the first backslash in b[i:end], or end.
// Escapes often come close together, so the next eight bytes are tested
// as a word before bytes.IndexByte searches the rest.
func backslashAt(b []byte, i, end int) int {
	if i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:]) ^ ('\\' * lo)
		// The lowest flagged byte is a real one: a false flag comes
		// from a borrow, so only above a real one.
		if f := (w - lo) &^ w & hi; f != 0 {
			return min(end, i+bits.TrailingZeros64(f)/8)
		}
		if i += 8; i >= end {
			return end
		}
	}
	return nextByte(b, i, end, '\\')
}

// nextByte is the index of the first c in b[i:end], or end.
func nextByte(b []byte, i, end int, c byte) int {
	if k := bytes.IndexByte(b[i:end], c); k >= 0 {
		return i + k
	}
	return end
}

// escapeLen is the length of the valid escape at b[i] == '\\', or 0.
func escapeLen(b []byte, i int) int {
	if i+1 >= len(b) {
		return 0
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if i+6 <= len(b) && isHex(b[i+2]) && isHex(b[i+3]) && isHex(b[i+4]) && isHex(b[i+5]) {
			return 6
		}
	}
	return 0
}

// Eight bytes at a time, as one word: lo has 0x01 in every byte, hi 0x80.
const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// controlAt is the index of the first control character (< 0x20) in
// b[i:end], or end. It tests eight bytes as one word: (w - 0x20…) &^ w has
// a byte's high bit set where the byte is below 0x20, and falsely only
// above such a byte (a borrow), so the lowest flag is a real one and a
// word with none flags none. Runs without one cost a test per 32 bytes.
func controlAt(b []byte, i, end int) int {
	s := b[i:end]
	for len(s) >= 32 {
		w0 := binary.LittleEndian.Uint64(s)
		w1 := binary.LittleEndian.Uint64(s[8:])
		w2 := binary.LittleEndian.Uint64(s[16:])
		w3 := binary.LittleEndian.Uint64(s[24:])
		if ((w0-0x20*lo)&^w0|(w1-0x20*lo)&^w1|(w2-0x20*lo)&^w2|(w3-0x20*lo)&^w3)&hi != 0 {
			break
		}
		s = s[32:]
	}
	for len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		if ctl := (w - 0x20*lo) &^ w & hi; ctl != 0 {
			return end - len(s) + bits.TrailingZeros64(ctl)/8
		}
		s = s[8:]
	}
	if at := end - len(s); len(s) > 0 && at+8 <= len(b) {
		// The last bytes, as the low bytes of a word read past them.
		w := binary.LittleEndian.Uint64(b[at:])
		if ctl := (w - 0x20*lo) &^ w & hi & (1<<(8*len(s)) - 1); ctl != 0 {
			return at + bits.TrailingZeros64(ctl)/8
		}
		return end
	}
	for k, c := range s {
		if c < 0x20 {
			return end - len(s) + k
		}
	}
	return end
}

func skipObject(b []byte, i, depth int, unchecked *int) (int, error) {
	if depth > maxDepth {
		return i, syntaxErr(i, "too deep")
	}
	return members(b, i, depth, unchecked, nil, nil)
}

func skipArray(b []byte, i, depth int, unchecked *int) (int, error) {
	if depth > maxDepth {
		return i, syntaxErr(i, "too deep")
	}
	return elements(b, i, depth, unchecked, nil)
}

// members walks the object starting at b[i] == '{'. For each member it calls
// fn with the index of the key's opening quote, the key's raw bytes (between
// the quotes, escapes untouched) and the span [vs, ve) of the value; fn
// returning false stops the walk early (the returned index is then
// meaningless). The value is skipped with skipValue, or by enter when it is
// not nil (Walk). It returns the index past '}'.
func members(b []byte, i, depth int, unchecked *int, enter func(key []byte, vs int) (int, error), fn func(ks int, key []byte, vs, ve int) bool) (int, error) {
	i++ // '{'
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return i, syntaxErr(i, "expected object key")
		}
		i0 := i
		ke, err := skipString(b, i, nil)
		if err != nil {
			return ke, err
		}
		key := b[i+1 : ke-1]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return i, syntaxErr(i, "expected ':'")
		}
		vs := skipSpace(b, i+1)
		var ve int
		if enter != nil {
			ve, err = enter(key, vs)
		} else {
			ve, err = skipValue(b, vs, depth, unchecked)
		}
		if err != nil {
			return ve, err
		}
		if fn != nil && !fn(i0, key, vs, ve) {
			return ve, nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return i, syntaxErr(i, "unterminated object")
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1, nil
		default:
			return i, syntaxErr(i, "expected ',' or '}'")
		}
	}
}

// Walk validates the object that starts at doc[i] (after whitespace) and
// returns the index past it. For each member it calls enter with the raw
// key (between the quotes) and the index where the value starts; enter
// returns the index past the value, having validated it: with SkipValue,
// or with a Walk into it, which so reads members of a nested object on
// the same pass over the bytes rather than walking them again afterwards.
func Walk(doc []byte, i int, enter func(key []byte, vs int) (int, error)) (int, error) {
	i = skipSpace(doc, i)
	if i >= len(doc) || doc[i] != '{' {
		return i, syntaxErr(i, "not an object")
	}
	return members(doc, i, 0, nil, enter, nil)
}

// elements walks the array starting at b[i] == '['; see members.
func elements(b []byte, i, depth int, unchecked *int, fn func(n, vs, ve int) bool) (int, error) {
	i++ // '['
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		vs := skipSpace(b, i)
		ve, err := skipValue(b, vs, depth, unchecked)
		if err != nil {
			return ve, err
		}
		if fn != nil && !fn(n, vs, ve) {
			return ve, nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return i, syntaxErr(i, "unterminated array")
		}
		switch b[i] {
		case ',':
			i++
		case ']':
			return i + 1, nil
		default:
			return i, syntaxErr(i, "expected ',' or ']'")
		}
	}
}

// Valid reports whether b is exactly one JSON value, with optional
// surrounding whitespace.
func Valid(b []byte) bool {
	end, err := SkipValue(b, 0)
	return err == nil && skipSpace(b, end) == len(b)
}
