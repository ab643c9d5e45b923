package rawjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A string ends at its first quote no backslash escapes; one that does
// not end in the bytes given is -1, never a panic.
func TestStringEnd(t *testing.T) {
	for s, want := range map[string]int{
		`"abc",`:        5,
		`"a\"b",`:       6,
		`"a\\"b`:        5,
		`"a\\\"b"`:      8,
		`""`:            2,
		`"unterminated`: -1,
		`"ends in \"`:   -1,
		`"`:             -1,
		`"x" and "y"`:   3,
	} {
		assert.Equal(t, want, StringEnd([]byte(s), 0), s)
	}
}
