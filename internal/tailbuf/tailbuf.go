// Package tailbuf keeps the end of what an agent writes to stderr: enough
// for its last words in a failure message, bounded for a chatty agent.
package tailbuf

import "sync"

// Buffer is an io.Writer that keeps the last bytes written to it, at most
// the max it was made with. It is safe for concurrent use: a process's
// stderr is copied by its own goroutine while another reads the tail.
type Buffer struct {
	mu   sync.Mutex
	max  int
	tail []byte
}

// New returns a Buffer that keeps the last max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps the end of p, dropping the oldest bytes beyond max. It never
// fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) >= b.max {
		b.tail = append(b.tail[:0], p[len(p)-b.max:]...)
		return len(p), nil
	}
	if keep := b.max - len(p); len(b.tail) > keep {
		b.tail = b.tail[len(b.tail)-keep:] // append reallocates once it runs out of room
	}
	b.tail = append(b.tail, p...)
	return len(p), nil
}

// String returns the bytes kept.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.tail)
}
