package doctor

import (
	"strings"
	"sync"
)

// tailBuffer keeps the end of the agent's stderr, for the line that says
// why it did not answer: enough for its last words, bounded for a chatty
// agent.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	tail []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) >= b.max {
		b.tail = append(b.tail[:0], p[len(p)-b.max:]...)
		return len(p), nil
	}
	if keep := b.max - len(p); len(b.tail) > keep {
		b.tail = b.tail[len(b.tail)-keep:]
	}
	b.tail = append(b.tail, p...)
	return len(p), nil
}

// last is "; its stderr ended with: LINE", the last non-empty line the
// agent wrote there (at most 200 characters), or "".
func (b *tailBuffer) last() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(b.tail)), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if line == "" {
		return ""
	}
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return "; its stderr ended with: " + line
}
