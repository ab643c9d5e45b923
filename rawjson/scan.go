package rawjson

import (
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
	return skipValue(b, i, 0)
}

// maxDepth bounds nesting so a hostile line cannot exhaust the stack.
const maxDepth = 10000

func skipValue(b []byte, i, depth int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, syntaxErr(i, "unexpected end")
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		return skipObject(b, i, depth+1)
	case c == '[':
		return skipArray(b, i, depth+1)
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
func skipString(b []byte, i int) (int, error) {
	i++
	for i < len(b) {
		i = plainRun(b, i)
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return i, syntaxErr(i, "unterminated escape")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, syntaxErr(i, "bad \\u escape")
				}
				i += 6
			default:
				return i, syntaxErr(i, "bad escape")
			}
		case c < 0x20:
			return i, syntaxErr(i, "control character in string")
		default:
			i++
		}
	}
	return i, syntaxErr(i, "unterminated string")
}

// Eight bytes at a time, as one word: lo has 0x01 in every byte, hi 0x80.
const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// plainRun returns the index of the first byte at or after b[i] that a
// string scan must look at ('"', '\\' or a control character), eight bytes
// at a time, or an index within the last eight bytes, before any such
// byte. Long strings (command output) so cost a fraction of a byte-by-byte
// scan.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q := w ^ ('"' * lo)   // zero bytes where '"'
		bs := w ^ ('\\' * lo) // zero bytes where '\\'
		// The lowest flagged byte is a real one: a false flag comes
		// from a borrow, so only above a real one.
		if special := ((q-lo)&^q | (bs-lo)&^bs | (w-0x20*lo)&^w) & hi; special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	return i
}

func skipObject(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, syntaxErr(i, "too deep")
	}
	return members(b, i, depth, nil)
}

func skipArray(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, syntaxErr(i, "too deep")
	}
	return elements(b, i, depth, nil)
}

// members walks the object starting at b[i] == '{'. For each member it calls
// fn with the index of the key's opening quote, the key's raw bytes (between
// the quotes, escapes untouched) and the span [vs, ve) of the value; fn
// returning false stops the walk early (the returned index is then
// meaningless). It returns the index past '}'.
func members(b []byte, i, depth int, fn func(ks int, key []byte, vs, ve int) bool) (int, error) {
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
		ke, err := skipString(b, i)
		if err != nil {
			return ke, err
		}
		key := b[i+1 : ke-1]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return i, syntaxErr(i, "expected ':'")
		}
		vs := skipSpace(b, i+1)
		ve, err := skipValue(b, vs, depth)
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

// elements walks the array starting at b[i] == '['; see members.
func elements(b []byte, i, depth int, fn func(n, vs, ve int) bool) (int, error) {
	i++ // '['
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for n := 0; ; n++ {
		vs := skipSpace(b, i)
		ve, err := skipValue(b, vs, depth)
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
