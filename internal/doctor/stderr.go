package doctor

import "strings"

// lastWords is "; its stderr ended with: LINE", the last non-empty line of
// the end of the agent's stderr, tail (at most 200 characters of it), or "".
func lastWords(tail string) string {
	lines := strings.Split(strings.TrimSpace(tail), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if line == "" {
		return ""
	}
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return "; its stderr ended with: " + line
}
