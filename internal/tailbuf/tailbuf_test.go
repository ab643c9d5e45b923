package tailbuf

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBufferKeepsTheLastMaxBytes(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"nothing written", 4, nil, ""},
		{"under max", 4, []string{"ab", "c"}, "abc"},
		{"exactly max", 4, []string{"ab", "cd"}, "abcd"},
		{"older bytes dropped", 4, []string{"abc", "def"}, "cdef"},
		{"one write over max", 4, []string{"ab", "cdefgh"}, "efgh"},
		{"many small writes", 3, []string{"a", "b", "c", "d", "e"}, "cde"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.max)
			for _, w := range tt.writes {
				n, err := b.Write([]byte(w))
				require.NoError(t, err)
				require.Equal(t, len(w), n, "Write reports all of p written")
			}
			assert.Equal(t, tt.want, b.String())
		})
	}
}

// The buffer must not keep a caller's slice: a writer may reuse it.
func TestBufferCopiesWhatItKeeps(t *testing.T) {
	b := New(8)
	p := []byte("abcdefgh")
	_, _ = b.Write(p)
	copy(p, "XXXXXXXX")
	assert.Equal(t, "abcdefgh", b.String())
}
