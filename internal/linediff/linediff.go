// Package linediff tells where two line streams first differ, so a failing
// test about a multi-megabyte trace prints one line, not two streams.
package linediff

import (
	"bytes"
	"fmt"
)

// First describes the first line where want and got differ (1-based, with
// both lines, clipped), or returns "" when they are equal.
func First(want, got [][]byte) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g []byte
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if !bytes.Equal(w, g) || (i < len(want)) != (i < len(got)) {
			return fmt.Sprintf("differs at line %d (of %d wanted, %d got):\nwant %s\n got %s", i+1, len(want), len(got), clip(w, i < len(want)), clip(g, i < len(got)))
		}
	}
	return ""
}

// Streams is First over two byte streams split after each '\n'.
func Streams(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	return First(bytes.SplitAfter(want, []byte("\n")), bytes.SplitAfter(got, []byte("\n")))
}

func clip(b []byte, present bool) string {
	const max = 600
	switch {
	case !present:
		return "(no line)"
	case len(b) <= max:
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q …[%d bytes]… %q", b[:max/2], len(b)-max, b[len(b)-max/2:])
}
