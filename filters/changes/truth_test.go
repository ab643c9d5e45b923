package changes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two calls from one model response compare with the same before-state: a
// change the first one's update showed, a deletion or a file too large to
// diff included, is not shown again on the second's.
func TestNothingIsShownOnTwoCalls(t *testing.T) {
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"x.txt": "x\n", "a": "a\n"}, git: git}, &Filter{})
		s.agent(started("A", "rm x.txt; echo M > m.txt"), started("B", "echo b > b.txt"))
		s.run("rm x.txt && echo M > m.txt && head -c 2000000 /dev/zero > big")
		s.agent(ended("A", "completed", ""))
		s.settle()
		s.run("echo b > b.txt")
		s.agent(ended("B", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 2, "git %v", git)
		for _, want := range []string{"- deleted x.txt", "- created m.txt", "- created big"} {
			assert.Contains(t, s.added()[0], want, "git %v", git)
		}
		second := s.added()[1]
		assert.Contains(t, second, "- created b.txt")
		for _, shown := range []string{"x.txt", "m.txt", "big"} {
			assert.False(t, strings.Contains(second, "- deleted "+shown) || strings.Contains(second, "- created "+shown),
				"git %v: %s, shown on A's update, is shown again on B's: %s", git, shown, second)
		}
	}
}
