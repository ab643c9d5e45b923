package output

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// stream is the output a call streamed, kept as the agent sent it: JSON
// string bytes (escaped, without the quotes), the data of its
// terminal_output(_delta) values one after the other. Output is decoded
// only when a call ends and its recovery needs it, so passing a stream on
// costs a copy and a hash, not a decode.
type stream struct {
	kept    []byte // the first bytes streamed, up to the limit once decoded
	decoded int    // kept's length decoded, once counted
	counted bool   // decoded is kept's length
	total   int    // bytes streamed
	dropped int    // decoded bytes streamed past the limit, not kept (at least 1 once any is)
	hash    uint32 // CRC-32C of the bytes streamed past kept (kept is compared as it is)

	// For a live tail (counted by add only when count is set).
	tail   int    // the live view's budget in bytes; zero: DefaultLiveTailBytes
	lines  int    // newlines streamed
	recent []byte // once output is dropped: the latest bytes streamed, up to recentMax
}

// castagnoli is the CRC-32C table. The checksum of what streams past the
// limit only tells, when the call ends, whether the agent's rawOutput
// repeats the stream (then its rest is sent as one more delta): both come
// from the same agent, so what it must catch is an accidental difference
// (a rawOutput cut short, re-wrapped or re-escaped past the limit), which
// a CRC of equal lengths misses with odds of 2⁻³² and never when it is a
// burst of up to 32 bits. It is hashed in hardware on amd64 and arm64,
// twice as fast as hash/maphash on 10 KB writes.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// recentMax bounds stream.recent: room for a tail of budget bytes, and
// for the lines that make it up.
func recentMax(budget int) int { return 2*budget + 4096 }

// add appends the JSON string bytes esc, keeping output of at most limit
// bytes (decoded) in all. The cut falls between two characters. Escaped
// output is never shorter than decoded, so the decoded length is counted
// only once the escaped bytes pass the limit, and what is dropped only
// when count says it is shown.
func (s *stream) add(esc []byte, limit int64, count bool) {
	if len(esc) == 0 {
		return
	}
	s.total += len(esc)
	if count {
		s.lines += countNewlines(esc)
	}
	switch {
	case s.dropped > 0 && count:
		s.hash = crc32.Update(s.hash, castagnoli, esc)
		s.dropped += decodedLen(esc)
		s.keepRecent(esc)
		return
	case s.dropped > 0:
		s.hash = crc32.Update(s.hash, castagnoli, esc)
		return
	case !s.counted && int64(len(s.kept)+len(esc)) <= limit:
		s.kept = appendDoubling(s.kept, esc)
		return
	case !s.counted:
		s.decoded, s.counted = decodedLen(s.kept), true
	}
	if d := decodedLen(esc); int64(s.decoded+d) <= limit {
		s.kept = appendDoubling(s.kept, esc)
		s.decoded += d
		return
	}
	cut, n := cutDecoded(esc, int(limit)-s.decoded)
	s.kept = appendDoubling(s.kept, esc[:cut])
	s.hash = crc32.Update(s.hash, castagnoli, esc[cut:])
	s.decoded += n
	s.dropped += max(1, decodedLen(esc[cut:]))
	if count {
		s.keepRecent(s.kept[charBoundary(s.kept, max(0, len(s.kept)-recentMax(s.budget()))):])
		s.keepRecent(esc[cut:])
	}
}

// appendDoubling is append(dst, src...), doubling dst's capacity when it
// must grow. append grows a large slice by a quarter, so keeping a
// command's megabytes of output would allocate, zero and copy them several
// times over (on the 10 KB delta stream, more time than all the rest of
// keeping output).
func appendDoubling(dst, src []byte) []byte {
	if need := len(dst) + len(src); need > cap(dst) {
		grown := make([]byte, len(dst), max(2*cap(dst), need, 4096))
		copy(grown, dst)
		dst = grown
	}
	return append(dst, src...)
}

// keepRecent appends esc to recent, dropping its oldest bytes down to
// recentMax once it holds twice that (so the copy is paid once per
// recentMax bytes streamed).
func (s *stream) keepRecent(esc []byte) {
	s.recent = append(s.recent, esc...)
	if keep := recentMax(s.budget()); len(s.recent) > 2*keep {
		cut := charBoundary(s.recent, len(s.recent)-keep)
		n := copy(s.recent, s.recent[cut:])
		s.recent = s.recent[:n]
	}
}

func (s *stream) budget() int {
	if s.tail > 0 {
		return s.tail
	}
	return DefaultLiveTailBytes
}

// live is the output to show while the command runs, as JSON string
// bytes: all of it (text) while what was streamed fits in the budget,
// else its last lines within the budget after a first line saying how
// many lines come before them (tailMarker). So what a client without the
// extension is sent while a command runs stays bounded, however long the
// output grows.
func (s *stream) live() []byte {
	if s.total <= s.budget() {
		return s.text()
	}
	src := s.kept
	if s.dropped > 0 {
		src = s.recent
	}
	tail := tailLines(src, s.budget())
	return append(tailMarker(s.lines-countNewlines(tail)), tail...)
}

// tailLines is the end of esc (JSON string bytes) within budget bytes,
// starting at a line's start when one is there, else between characters.
func tailLines(esc []byte, budget int) []byte {
	if len(esc) <= budget {
		return esc
	}
	tail := esc[charBoundary(esc, len(esc)-budget):]
	for i := 0; i+1 < len(tail); {
		k := bytes.Index(tail[i:], []byte(`\n`))
		if k < 0 {
			break
		}
		if i += k; rawjson.BackslashesBefore(tail, i)%2 == 0 && i+2 < len(tail) {
			return tail[i+2:]
		}
		i += 2
	}
	return tail
}

// tailMarker is the first line of a live tail, as JSON string bytes:
//
//	… 12,345 earlier lines not shown (live tail) …
func tailMarker(earlier int) []byte {
	q := rawjson.Quote("… " + thousands(earlier) + " earlier lines not shown (live tail) …\n")
	return q[1 : len(q)-1]
}

// thousands formats n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// countNewlines counts the newlines in JSON string bytes (\n and \u000a).
func countNewlines(esc []byte) int {
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
		i += escapeLen(esc[i:])
	}
}

// text is the output to show, as JSON string bytes: all of it, or what was
// kept and a note of what was not.
func (s *stream) text() []byte {
	if s.dropped == 0 {
		return s.kept
	}
	note := fmt.Sprintf("\n[acp-proxy: %d more bytes of output are not shown (over --max-output-bytes); the agent's full output follows when the command ends, if it sends one]\n", s.dropped)
	q := rawjson.Quote(note)
	return append(append([]byte(nil), s.kept...), q[1:len(q)-1]...)
}

// rest is what final (the whole output as JSON string bytes, from
// rawOutput) holds past what was streamed, when the stream is a strict
// prefix of it; else nil.
func (s *stream) rest(final []byte) []byte {
	if rest, ok := s.suffix(final); ok && len(rest) > 0 {
		return rest
	}
	return nil
}

// suffix is what final (JSON string bytes) holds past what was streamed,
// and whether the stream is a prefix of it. The agent escapes its stream
// and its rawOutput alike, so comparing the bytes as sent needs no
// decoding; when they differ, and everything streamed was kept, the two
// are decoded and compared.
func (s *stream) suffix(final []byte) ([]byte, bool) {
	k := len(s.kept)
	if len(final) >= s.total && charBoundary(final, s.total) == s.total && bytes.Equal(final[:k], s.kept) &&
		(s.total == k || crc32.Update(0, castagnoli, final[k:s.total]) == s.hash) {
		return final[s.total:], true
	}
	if s.dropped > 0 || s.total != len(s.kept) {
		return nil, false
	}
	sent, err := unquoteBody(s.kept)
	if err != nil {
		return nil, false
	}
	all, err := unquoteBody(final)
	if err != nil || !strings.HasPrefix(all, sent) {
		return nil, false
	}
	q := rawjson.Quote(all[len(sent):])
	return q[1 : len(q)-1], true
}

// reset forgets the output streamed: the terminal's output was replaced.
func (s *stream) reset() { *s = stream{tail: s.tail, kept: s.kept[:0]} }

// unquoteBody decodes JSON string bytes.
func unquoteBody(esc []byte) (string, error) { return rawjson.Unquote(quoteRaw(esc)) }

// charBoundary returns the largest i ≤ n at which the JSON string bytes esc
// can be cut between two characters: not inside an escape or a UTF-8
// sequence.
func charBoundary(esc []byte, n int) int {
	if n >= len(esc) {
		return len(esc)
	}
	for n > 0 && !utf8.RuneStart(esc[n]) {
		n--
	}
	// An escape is at most 6 bytes (\uXXXX): cut before one that n falls in.
	for back := 1; back <= 5 && n-back >= 0; back++ {
		i := n - back
		if esc[i] != '\\' || rawjson.BackslashesBefore(esc, i)%2 != 0 {
			continue
		}
		if back == 1 || esc[i+1] == 'u' {
			return i
		}
		break
	}
	return n
}

// cutDecoded returns the longest prefix of the JSON string bytes esc
// whose decoded length n is at most room, as its length in esc.
func cutDecoded(esc []byte, room int) (cut, n int) {
	for cut < len(esc) {
		step := 1
		switch {
		case esc[cut] == '\\':
			step = escapeLen(esc[cut:])
		case esc[cut] >= utf8.RuneSelf:
			_, step = utf8.DecodeRune(esc[cut:])
		}
		d := decodedLen(esc[cut : cut+step])
		if n+d > room {
			break
		}
		cut, n = cut+step, n+d
	}
	return cut, n
}

// escapeLen is the length of the escape esc starts with, a surrogate pair
// counting as one.
func escapeLen(esc []byte) int {
	if len(esc) < 6 || esc[1] != 'u' {
		return min(2, len(esc))
	}
	if r := hexRune(esc[2:6]); r >= 0xd800 && r < 0xdc00 && len(esc) >= 12 && esc[6] == '\\' && esc[7] == 'u' {
		return 12
	}
	return 6
}

// decodedLen is the length of JSON string bytes once decoded.
func decodedLen(esc []byte) int {
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

// trimNewlines removes the newlines that end JSON string bytes (\n and
// \u000a escapes).
func trimNewlines(esc []byte) []byte {
	for {
		switch {
		case bytes.HasSuffix(esc, []byte(`\n`)) && rawjson.BackslashesBefore(esc, len(esc)-2)%2 == 0:
			esc = esc[:len(esc)-2]
		case len(esc) >= 6 && bytes.EqualFold(esc[len(esc)-6:], []byte(`\u000a`)) && rawjson.BackslashesBefore(esc, len(esc)-6)%2 == 0:
			esc = esc[:len(esc)-6]
		default:
			return esc
		}
	}
}
