package proctree

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatReadsACommandNameWithSpacesAndParentheses(t *testing.T) {
	p, ok := parseStat(42, []byte("42 (a (b) c) S 7 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0 0"))
	require.True(t, ok)
	assert.Equal(t, Proc{PID: 42, PPID: 7, PGID: 42, Start: 12345, Comm: "a (b) c", State: 'S'}, p)
}
