package rawjson

import (
	"bytes"
	"unicode/utf8"
)

// Escaped string bytes are the contents of a JSON string as they stand
// between its quotes: a filter that passes output on keeps it so, as the
// agent sent it, and decodes it only when it must. This file is what the
// filters know about them: where they may be cut, how long they are once
// decoded, and their newlines.

// Escape returns s as escaped string bytes: Quote without the quotes.
func Escape(s string) []byte {
	q := Quote(s)
	return q[1 : len(q)-1]
}

// Enclose wraps the escaped string bytes esc in quotes: the JSON string.
func Enclose(esc []byte) []byte {
	out := make([]byte, 0, len(esc)+2)
	out = append(out, '"')
	out = append(out, esc...)
	return append(out, '"')
}

// Unescape decodes the escaped string bytes esc.
func Unescape(esc []byte) (string, error) { return Unquote(Enclose(esc)) }

// CharBoundary returns the largest i ≤ n at which the escaped string bytes
// esc can be cut between two characters: not inside an escape or a UTF-8
// sequence.
func CharBoundary(esc []byte, n int) int {
	if n >= len(esc) {
		return len(esc)
	}
	for n > 0 && !utf8.RuneStart(esc[n]) {
		n--
	}
	// An escape is at most 6 bytes (\uXXXX): cut before one that n falls in.
	for back := 1; back <= 5 && n-back >= 0; back++ {
		i := n - back
		if esc[i] != '\\' || BackslashesBefore(esc, i)%2 != 0 {
			continue
		}
		if back == 1 || esc[i+1] == 'u' {
			return i
		}
		break
	}
	return n
}

// TailLines is the end of the escaped string bytes esc within budget
// bytes, starting at a line's start (after a \n escape) when one is there,
// else between characters.
func TailLines(esc []byte, budget int) []byte {
	if len(esc) <= budget {
		return esc
	}
	tail := esc[CharBoundary(esc, len(esc)-budget):]
	for i := 0; i+1 < len(tail); {
		k := bytes.Index(tail[i:], []byte(`\n`))
		if k < 0 {
			break
		}
		if i += k; BackslashesBefore(tail, i)%2 == 0 && i+2 < len(tail) {
			return tail[i+2:]
		}
		i += 2
	}
	return tail
}

// CutDecoded returns the longest prefix of the escaped string bytes esc
// whose decoded length n is at most room, as its length in esc.
func CutDecoded(esc []byte, room int) (cut, n int) {
	for cut < len(esc) {
		step := 1
		switch {
		case esc[cut] == '\\':
			step = escapedCharLen(esc[cut:])
		case esc[cut] >= utf8.RuneSelf:
			_, step = utf8.DecodeRune(esc[cut:])
		}
		d := DecodedLen(esc[cut : cut+step])
		if n+d > room {
			break
		}
		cut, n = cut+step, n+d
	}
	return cut, n
}

// escapedCharLen is the length of the escape esc starts with, a surrogate
// pair counting as one.
func escapedCharLen(esc []byte) int {
	if len(esc) < 6 || esc[1] != 'u' {
		return min(2, len(esc))
	}
	if r := hexRune(esc[2:6]); r >= 0xd800 && r < 0xdc00 && len(esc) >= 12 && esc[6] == '\\' && esc[7] == 'u' {
		return 12
	}
	return 6
}

// DecodedLen is the length of the escaped string bytes esc once decoded.
func DecodedLen(esc []byte) int {
	n := len(esc)
	for i := 0; ; {
		k := bytes.IndexByte(esc[i:], '\\')
		if k < 0 || i+k+1 >= len(esc) {
			return n
		}
		i += k
		if esc[i+1] != 'u' || i+6 > len(esc) {
			n--
			i += 2
			continue
		}
		r := hexRune(esc[i+2 : i+6])
		switch {
		case r >= 0xd800 && r < 0xdc00 && i+12 <= len(esc) && esc[i+6] == '\\' && esc[i+7] == 'u':
			n -= 12 - 4 // a surrogate pair: one 4-byte rune
			i += 12
		case r >= 0xd800 && r < 0xe000:
			n -= 6 - 3 // alone: U+FFFD
			i += 6
		default:
			n -= 6 - utf8.RuneLen(r)
			i += 6
		}
	}
}

// hexRune is the value of the four hex digits h.
func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		}
	}
	return r
}

// CountNewlines counts the newlines in the escaped string bytes esc (\n
// and \u000a).
func CountNewlines(esc []byte) int {
	n := 0
	for i := 0; ; {
		k := bytes.IndexByte(esc[i:], '\\')
		if k < 0 || i+k+1 >= len(esc) {
			return n
		}
		i += k
		switch {
		case esc[i+1] == 'n':
			n++
		case esc[i+1] == 'u' && i+6 <= len(esc) && hexRune(esc[i+2:i+6]) == '\n':
			n++
		}
		i += escapedCharLen(esc[i:])
	}
}

// TrimNewlines removes the newlines that end the escaped string bytes esc
// (\n and \u000a escapes).
func TrimNewlines(esc []byte) []byte {
	for {
		switch {
		case bytes.HasSuffix(esc, []byte(`\n`)) && BackslashesBefore(esc, len(esc)-2)%2 == 0:
			esc = esc[:len(esc)-2]
		case len(esc) >= 6 && bytes.EqualFold(esc[len(esc)-6:], []byte(`\u000a`)) && BackslashesBefore(esc, len(esc)-6)%2 == 0:
			esc = esc[:len(esc)-6]
		default:
			return esc
		}
	}
}

// HighSurrogateTail is 6 when the escaped string bytes esc end with the
// escape of a UTF-16 high surrogate (\ud800–\udbff), else 0: a pair split
// between two pieces of output waits for its other half.
func HighSurrogateTail(esc []byte) int {
	if len(esc) < 6 {
		return 0
	}
	t := esc[len(esc)-6:]
	if t[0] != '\\' || t[1] != 'u' || (t[2] != 'd' && t[2] != 'D') || BackslashesBefore(esc, len(esc)-6)%2 != 0 {
		return 0
	}
	switch t[3] {
	case '8', '9', 'a', 'b', 'A', 'B':
		return 6
	}
	return 0
}
