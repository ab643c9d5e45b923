package changes

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/beneath"
)

// Names whose byte order is not the walk's ("a.txt" sorts before "a/b",
// the walk meets the folder "a" first), and names around '/' in bytes
// (' ', '-', '.'), each created, deleted or changed: a report made by
// walking beside the before-state's list names each change once, as the
// files say, a file that became a folder included.
func TestAReportMeetsEveryFileWhereverItsNameSorts(t *testing.T) {
	files := map[string]string{"a.txt": "1\n", "a/b": "2\n", "a-b/c": "3\n", "a b": "4\n", "ab": "5\n", "z": "6\n", "a/b.c/d": "7\n"}
	dir := tree{files: files}.make(t)
	snap := Take(bg, dir, testLimits)
	defer snap.Close()
	sh(t, dir, "rm a.txt a/b && echo new > a/c && echo 33 > a-b/c && echo new > a.txt2 && echo new > 0first && rm ab && mkdir ab && echo new > ab/x && echo 77 > a/b.c/d")
	want := []seen{
		{op: Created, path: "0first", old: "-", new: "new\n"},
		{op: Modified, path: "a-b/c", old: "3\n", new: "33\n"},
		{op: Deleted, path: "a.txt", old: "1\n", new: ""},
		{op: Created, path: "a.txt2", old: "-", new: "new\n"},
		{op: Deleted, path: "a/b", old: "2\n", new: ""},
		{op: Modified, path: "a/b.c/d", old: "7\n", new: "77\n"},
		{op: Created, path: "a/c", old: "-", new: "new\n"},
		noDiff(Modified, "ab", "not a regular file (d---------)"), // a folder now, as changesOf says it
		{op: Created, path: "ab/x", old: "-", new: "new\n"},
	}
	r := snap.Changes(bg)
	if got := summarise(dir, r); !matches(got, want) || r.Note != "" {
		t.Errorf("got %+v (note %q)\nwant %+v", got, r.Note, want)
	}
}

// The walk meets the files in walkOrder, and says of each what an Lstat
// says (os's mode bits, a link's target, a FIFO), never entering a
// folder through a link nor a skipped folder.
func TestTheWalkSeesWhatLstatSees(t *testing.T) {
	dir := tree{files: map[string]string{"a.txt": "1", "a/b": "2", "a b": "3", "x/y/z": "4", "node_modules/m.js": "5"},
		setup: "chmod 755 a.txt && chmod 4644 'a b' && mkfifo pipe && ln -s a link && ln -s /etc/hostname out && chmod 2755 x"}.make(t)
	d, err := beneath.OpenDir(dir)
	require.NoError(t, err)
	defer d.Close()
	var rels []string
	note := walkFiles(bg, dir, d, func(folder, name string, v version) bool {
		rel := folder + name
		rels = append(rels, rel)
		fi, err := os.Lstat(filepath.Join(dir, rel))
		require.NoError(t, err)
		assert.Equal(t, versionOf(d, rel, fi), v, rel)
		return true
	})
	assert.Empty(t, note)
	assert.Equal(t, []string{"a/b", "a b", "a.txt", "link", "out", "pipe", "x/y/z"}, rels)
	assert.True(t, slices.IsSortedFunc(rels, walkOrder), "in walkOrder")
}

func TestWalkOrderIsFolderByFolder(t *testing.T) {
	for _, row := range []struct {
		a, b string
		want int
	}{
		{"a/b", "a.txt", -1}, {"a/b", "a b", -1}, {"a-b/c", "a/b", 1}, {"a/b", "a/b", 0}, {"a", "a/b", -1}, {"ab", "a/z", 1}, {"b", "a/z", 1},
	} {
		assert.Equal(t, row.want, walkOrder(row.a, row.b), "%q vs %q", row.a, row.b)
		assert.Equal(t, -row.want, walkOrder(row.b, row.a), "%q vs %q", row.b, row.a)
	}
}

func TestWalkOrderOfAFolderAndANameIsTheirJoin(t *testing.T) {
	for _, a := range []string{"a", "a/b", "a.txt", "a b", "a/b/c", "b", "", "a/"} {
		for _, fn := range [][2]string{{"", "a"}, {"a/", "b"}, {"a/", "a"}, {"a/b/", "c"}, {"", "a.txt"}, {"b/", "x"}} {
			assert.Equal(t, walkOrder(a, fn[0]+fn[1]), walkOrderOf(a, fn[0], fn[1]), "%q vs %q", a, fn[0]+fn[1])
			assert.Equal(t, a == fn[0]+fn[1], isPath(a, fn[0], fn[1]))
		}
	}
}
