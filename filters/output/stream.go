package output

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"

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
		s.lines += rawjson.CountNewlines(esc)
	}
	switch {
	case s.dropped > 0 && count:
		s.hash = crc32.Update(s.hash, castagnoli, esc)
		s.dropped += rawjson.DecodedLen(esc)
		s.keepRecent(esc)
		return
	case s.dropped > 0:
		s.hash = crc32.Update(s.hash, castagnoli, esc)
		return
	case !s.counted && int64(len(s.kept)+len(esc)) <= limit:
		s.kept = appendDoubling(s.kept, esc)
		return
	case !s.counted:
		s.decoded, s.counted = rawjson.DecodedLen(s.kept), true
	}
	if d := rawjson.DecodedLen(esc); int64(s.decoded+d) <= limit {
		s.kept = appendDoubling(s.kept, esc)
		s.decoded += d
		return
	}
	cut, n := rawjson.CutDecoded(esc, int(limit)-s.decoded)
	s.kept = appendDoubling(s.kept, esc[:cut])
	s.hash = crc32.Update(s.hash, castagnoli, esc[cut:])
	s.decoded += n
	s.dropped += max(1, rawjson.DecodedLen(esc[cut:]))
	if count {
		s.keepRecent(s.kept[rawjson.CharBoundary(s.kept, max(0, len(s.kept)-recentMax(s.budget()))):])
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
		cut := rawjson.CharBoundary(s.recent, len(s.recent)-keep)
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
	tail := rawjson.TailLines(src, s.budget())
	return append(tailMarker(s.lines-rawjson.CountNewlines(tail)), tail...)
}

// tailMarker is the first line of a live tail, as JSON string bytes:
//
//	… 12,345 earlier lines not shown (live tail) …
func tailMarker(earlier int) []byte {
	return rawjson.Escape("… " + thousands(earlier) + " earlier lines not shown (live tail) …\n")
}

// thousands formats n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// text is the output to show, as JSON string bytes: all of it, or what was
// kept and a note of what was not.
func (s *stream) text() []byte {
	if s.dropped == 0 {
		return s.kept
	}
	note := fmt.Sprintf("\n[acp-proxy: %d more bytes of output are not shown (over --max-output-bytes); the agent's full output follows when the command ends, if it sends one]\n", s.dropped)
	return append(append([]byte(nil), s.kept...), rawjson.Escape(note)...)
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
	if len(final) >= s.total && rawjson.CharBoundary(final, s.total) == s.total && bytes.Equal(final[:k], s.kept) &&
		(s.total == k || crc32.Update(0, castagnoli, final[k:s.total]) == s.hash) {
		return final[s.total:], true
	}
	if s.dropped > 0 || s.total != len(s.kept) {
		return nil, false
	}
	sent, err := rawjson.Unescape(s.kept)
	if err != nil {
		return nil, false
	}
	all, err := rawjson.Unescape(final)
	if err != nil || !strings.HasPrefix(all, sent) {
		return nil, false
	}
	return rawjson.Escape(all[len(sent):]), true
}

// reset forgets the output streamed: the terminal's output was replaced.
func (s *stream) reset() { *s = stream{tail: s.tail, kept: s.kept[:0]} }
