package doctor

import (
	"regexp"
	"strings"
)

// lastWords is "; its stderr ended with: LINE", the last non-empty line of
// the end of the agent's stderr, tail (at most 200 characters of it, its
// terminal escapes removed), or "".
func lastWords(tail string) string {
	lines := strings.Split(strings.TrimSpace(plainText(tail)), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if line == "" {
		return ""
	}
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return "; its stderr ended with: " + line
}

// terminalEscape is an ANSI escape sequence: a CSI sequence (colours,
// cursor moves: ESC [ … final byte), an OSC sequence (a window title, a
// hyperlink: ESC ] … BEL or ESC \), or a two-byte escape.
var terminalEscape = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|\x1b[@-Z\\\\-_]")

// plainText is s as a terminal shows it, for a line of doctor's: without
// the escapes of an agent that colours its messages (chalk, ANSI codes), and
// of a line a carriage return rewrote (a spinner), only its last text.
func plainText(s string) string {
	lines := strings.Split(terminalEscape.ReplaceAllString(s, ""), "\n")
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		lines[i] = line[strings.LastIndex(line, "\r")+1:]
	}
	return strings.Join(lines, "\n")
}
