package view

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Limits of what the page holds of one piece of text: anything longer is
// shown as its first and last lines, with the size of what is left out.
const (
	wholeBytes = 12 << 10 // a text up to this size and wholeLines is kept whole
	wholeLines = 300
	edgeLines  = 40      // otherwise: this many lines from each end
	edgeBytes  = 4 << 10 // of at most this many bytes each
)

// textAcc accumulates text that may grow without bound (terminal output,
// agent message chunks) and keeps only what a Text can show: everything
// while it is small, then the head and a rolling tail.
type textAcc struct {
	head, tail []byte
	bytes      int64
	lines      int64 // '\n' seen
	split      bool  // head is frozen, tail rolls
}

func (a *textAcc) write(s []byte) {
	a.bytes += int64(len(s))
	a.lines += int64(bytes.Count(s, []byte{'\n'}))
	if !a.split {
		a.head = append(a.head, s...)
		if len(a.head) <= wholeBytes {
			return
		}
		a.split = true
		s = a.head[edgeBytes:]
		a.head = a.head[:edgeBytes:edgeBytes]
	}
	a.tail = append(a.tail, s...)
	if len(a.tail) > 4*edgeBytes {
		a.tail = append(a.tail[:0], a.tail[len(a.tail)-edgeBytes:]...)
	}
}

func (a *textAcc) text() Text {
	lines := a.lines
	if a.bytes > 0 && (len(a.tail) > 0 && a.tail[len(a.tail)-1] != '\n' || len(a.tail) == 0 && a.head[len(a.head)-1] != '\n') {
		lines++ // a last line without '\n' is a line too
	}
	if !a.split {
		return makeText(a.head)
	}
	return edges(a.head, a.tail, a.bytes, lines)
}

// makeText is s, whole or elided.
func makeText(s []byte) Text {
	lines := int64(bytes.Count(s, []byte{'\n'}))
	if len(s) > 0 && s[len(s)-1] != '\n' {
		lines++
	}
	if len(s) <= wholeBytes && lines <= wholeLines {
		return Text{Text: validUTF8(s), Bytes: int64(len(s)), Lines: lines}
	}
	// Longer than wholeBytes or than wholeLines: edgeLines lines of at
	// most edgeBytes from each end cannot overlap.
	return edges(s, s, int64(len(s)), lines)
}

// edges makes an elided Text from the start of head and the end of tail,
// of a text of n bytes and lines lines (their shown parts must not
// overlap).
func edges(head, tail []byte, n, lines int64) Text {
	head = firstLines(head, edgeLines, edgeBytes)
	tail = lastLines(tail, edgeLines, edgeBytes)
	hl := int64(bytes.Count(head, []byte{'\n'}))
	tl := int64(bytes.Count(tail, []byte{'\n'}))
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		tl++
	}
	return Text{
		Text:         validUTF8(head),
		Tail:         validUTF8(tail),
		Bytes:        n,
		Lines:        lines,
		OmittedLines: max(0, lines-hl-tl),
		OmittedBytes: max(0, n-int64(len(head))-int64(len(tail))),
	}
}

// firstLines is the start of b up to n lines and max bytes, ending after a
// '\n' when one is in reach.
func firstLines(b []byte, n, maxBytes int) []byte {
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(b[end:], '\n')
		if j < 0 || end+j+1 > maxBytes {
			break
		}
		end += j + 1
	}
	if end == 0 { // one long first line: cut it
		end = min(len(b), maxBytes)
	}
	return b[:end]
}

// lastLines is the end of b: up to n whole lines and max bytes.
func lastLines(b []byte, n, maxBytes int) []byte {
	start := len(b)
	if start > 0 && b[start-1] == '\n' {
		start-- // the final '\n' ends the last line, it does not start one
	}
	for i := 0; i < n; i++ {
		j := bytes.LastIndexByte(b[:start], '\n')
		if j < 0 || len(b)-j-1 > maxBytes {
			break
		}
		start = j
	}
	if start == len(b) || start == len(b)-1 && b[start] == '\n' {
		start = max(0, len(b)-maxBytes) // one long last line: its end
	} else if b[start] == '\n' {
		start++
	}
	return b[start:]
}

// validUTF8 is b as a string, with a rune cut at either edge (or any
// invalid byte) replaced, so the JSON stays faithful.
func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// marker is what stands in a raw message for the middle of an elided
// string.
func marker(t Text) string {
	return fmt.Sprintf("\n[… acp-proxy view: %d lines, %d bytes not shown …]\n", t.OmittedLines, t.OmittedBytes)
}
