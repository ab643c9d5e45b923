package shellcorpus

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var measureEntries = []Entry{
	{Command: "cat <<'EOF' > repro.py\nprint(1)\nEOF", Source: "s", Cwd: "/testbed", Seen: 2},
	{Command: "cd /testbed/pkg && printf 'x\\n' > /testbed/pkg/a.txt", Source: "s", Cwd: "/testbed", Seen: 1},
	{Command: "sed -i 's/line 1$/one/' f.py", Source: "s", Cwd: "/testbed", Seen: 1},
	{Command: "echo x > /tmp/outside.txt", Source: "s", Cwd: "/testbed", Seen: 1},
}

// The harness runs what Today shows and finds it exact; it never runs what
// is not shown.
func TestMeasureToday(t *testing.T) {
	tmp := sandboxParent(t)
	run, err := NewBashRunner(tmp)
	if err != nil {
		t.Skipf("no sandboxed bash here: %v", err)
	}
	var ran []string
	counting := func(dir, script string) error {
		ran = append(ran, script)
		return run(dir, script)
	}
	res, err := Measure(measureEntries, Today, counting, tmp)
	require.NoError(t, err)
	require.Empty(t, res.Wrong, "wrong: %+v", res.Wrong)
	over := res.ByForm[FormOverwrite]
	if assert.NotNil(t, over, "overwrites") {
		assert.Equal(t, 3, over.Commands, "overwrites: commands")
		assert.Equal(t, 4, over.Repeats, "overwrites: commands with repeats")
		assert.Equal(t, 2, over.Shown, "overwrites: shown")
		assert.Equal(t, 2, over.Exact, "overwrites: shown exactly")
	}
	sed := res.ByForm[FormSedInPlace]
	if assert.NotNil(t, sed, "sed -i") {
		if assert.Equal(t, 1, sed.Commands, "sed -i: %+v, want 1 command, not shown", sed) {
			assert.Equal(t, 0, sed.Shown, "sed -i: %+v, want 1 command, not shown", sed)
		}
	}
	assert.Len(t, ran, 2, "ran")
	for _, s := range ran {
		if strings.Contains(s, "/testbed/") {
			assert.Contains(t, s, tmp, "ran %q with the agent's own paths", s)
		}
	}
}

// A recogniser that shows the wrong bytes, a file the command does not
// write, or misses one it does while saying it shows all, is caught.
func TestMeasureCatchesWrongShows(t *testing.T) {
	tmp := sandboxParent(t)
	run, err := NewBashRunner(tmp)
	if err != nil {
		t.Skipf("no sandboxed bash here: %v", err)
	}
	wrong := map[string]Recogniser{
		"bytes": func(script, dir string) (Shown, bool) {
			shown, ok := Today(script, dir)
			for i := range shown.Files {
				shown.Files[i].Content = append(shown.Files[i].Content, 'x')
			}
			return shown, ok
		},
		"bytes, not all": func(script, dir string) (Shown, bool) {
			shown, ok := Today(script, dir)
			shown.All = false
			for i := range shown.Files {
				shown.Files[i].Content = nil
			}
			return shown, ok
		},
		"extra file": func(script, dir string) (Shown, bool) {
			shown, ok := Today(script, dir)
			shown.Files = append(shown.Files, ShownFile{Path: dir + "/other", Content: []byte("x")})
			return shown, ok
		},
		"missed file": func(script, dir string) (Shown, bool) {
			shown, ok := Today(script, dir)
			shown.Files = nil
			return shown, ok
		},
		"outside": func(script, dir string) (Shown, bool) {
			_, ok := Today(script, dir)
			return Shown{Files: []ShownFile{{Path: "/etc/passwd"}}}, ok
		},
	}
	for name, r := range wrong {
		res, err := Measure(measureEntries[:1], r, run, tmp)
		require.NoError(t, err)
		if assert.Len(t, res.Wrong, 1, "%s: wrong = %+v, want the one shown command", name, res.Wrong) {
			assert.Equal(t, 1, res.ByForm[FormOverwrite].Wrong, "%s: wrong = %+v, want the one shown command", name, res.Wrong)
		}
	}
}

// A command shown in part (it runs more, and stays visible) may write other
// files too; the files shown must still hold their shown text.
func TestMeasurePartialShows(t *testing.T) {
	tmp := sandboxParent(t)
	run, err := NewBashRunner(tmp)
	if err != nil {
		t.Skipf("no sandboxed bash here: %v", err)
	}
	entries := []Entry{{Command: "echo a > a.txt\necho b > b.txt", Source: "s", Cwd: "/testbed"}}
	first := func(script, dir string) (Shown, bool) {
		return Shown{Files: []ShownFile{{Path: dir + "/a.txt", Content: []byte("a\n")}}}, true
	}
	res, err := Measure(entries, first, run, tmp)
	require.NoError(t, err)
	c := res.ByForm[FormSeveral]
	if assert.Empty(t, res.Wrong, "partial show: %+v, wrong %+v; want exact", c, res.Wrong) {
		if assert.NotNil(t, c, "partial show: %+v, wrong %+v; want exact", c, res.Wrong) {
			assert.Equal(t, 1, c.Exact, "partial show: %+v, wrong %+v; want exact", c, res.Wrong)
		}
	}
	all := func(script, dir string) (Shown, bool) {
		shown, ok := first(script, dir)
		shown.All = true
		return shown, ok
	}
	res, err = Measure(entries, all, run, tmp)
	if assert.NoError(t, err) {
		assert.Len(t, res.Wrong, 1, "a show of all that misses b.txt: wrong %+v; want it caught", res.Wrong)
	}
}
