package shellcorpus

import (
	"bytes"
	"fmt"
	"os"
	"sort"
)

// Count is one row of the benchmark: commands of one form (or one source).
type Count struct {
	Commands int // distinct commands
	Repeats  int // the same, counting exact repeats
	Shown    int // the recogniser shows them
	Part     int // shown, but the command runs more than the files shown (it stays visible)
	Exact    int // shown, and bash wrote exactly the files shown
	Wrong    int // shown, and bash wrote something else
}

func (c *Count) add(o Count) {
	c.Commands += o.Commands
	c.Repeats += o.Repeats
	c.Shown += o.Shown
	c.Part += o.Part
	c.Exact += o.Exact
	c.Wrong += o.Wrong
}

// Mismatch is a shown command whose run did not match what was shown.
type Mismatch struct {
	Entry  Entry
	Reason string
}

// Result is what Measure found.
type Result struct {
	ByForm   map[Form]*Count
	BySource map[string]*Count
	Wrong    []Mismatch
	Unparsed int  // commands bash syntax rejects (not counted in any row)
	Ran      bool // shown commands were run to check them
}

// Runner runs script with bash in dir, a sandbox. It reports only failures
// to run; the script's own exit status does not matter.
type Runner func(dir, script string) error

// Measure asks recognise about every entry, each in a fresh sandbox under
// tmp, and, when run is not nil, runs the shown ones and compares the files.
// Commands the recogniser does not show are never run.
func Measure(entries []Entry, recognise Recogniser, run Runner, tmp string) (Result, error) {
	r := Result{ByForm: map[Form]*Count{}, BySource: map[string]*Count{}, Ran: run != nil}
	for _, e := range entries {
		form, err := Classify(e.Command)
		if err != nil || form == FormNone {
			r.Unparsed++
			continue
		}
		c, reason, err := measureOne(e, recognise, run, tmp)
		if err != nil {
			return r, fmt.Errorf("shellcorpus: %s (%s): %w", e.File, e.Source, err)
		}
		if reason != "" {
			r.Wrong = append(r.Wrong, Mismatch{Entry: e, Reason: reason})
		}
		if r.ByForm[form] == nil {
			r.ByForm[form] = &Count{}
		}
		if r.BySource[e.Source] == nil {
			r.BySource[e.Source] = &Count{}
		}
		r.ByForm[form].add(c)
		r.BySource[e.Source].add(c)
	}
	return r, nil
}

// measureOne counts one entry; reason says why a shown command is wrong.
func measureOne(e Entry, recognise Recogniser, run Runner, tmp string) (Count, string, error) {
	c := Count{Commands: 1, Repeats: max(e.Seen, 1)}
	dir, err := os.MkdirTemp(tmp, "cmd")
	if err != nil {
		return c, "", err
	}
	defer os.RemoveAll(dir)
	sb, err := newSandbox(dir, e)
	if err != nil {
		return c, "", err
	}
	shown, ok := recognise(sb.script, sb.cwd)
	if !ok {
		return c, "", nil
	}
	c.Shown = 1
	if !shown.All {
		c.Part = 1
	}
	if run == nil {
		return c, "", nil
	}
	for _, f := range shown.Files {
		if !sb.inside(f.Path) {
			c.Wrong = 1
			return c, fmt.Sprintf("shows %s, outside the sandbox (not run)", f.Path), nil
		}
	}
	reason, err := sb.check(shown, run)
	if err != nil {
		return c, "", err
	}
	if reason != "" {
		c.Wrong = 1
		return c, reason, nil
	}
	c.Exact = 1
	return c, "", nil
}

// check runs the sandbox's script and compares the files with the files
// shown: each shown file must hold its shown text, and, when the shown files
// are all the command writes, no other file may have changed.
func (s *sandbox) check(shown Shown, run Runner) (string, error) {
	if err := handOver(s.root); err != nil {
		return "", err
	}
	before, err := snapshot(s.root)
	if err != nil {
		return "", err
	}
	if err := run(s.cwd, s.script); err != nil {
		return "", err
	}
	after, err := snapshot(s.root)
	if err != nil {
		return "", err
	}
	want := map[string][]byte{}
	for _, f := range shown.Files {
		want[f.Path] = f.Content // a file shown twice shows its last text
	}
	var changed []string
	for p, b := range after {
		if old, ok := before[p]; !ok || !bytes.Equal(old, b) {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	for _, p := range changed {
		if _, ok := want[p]; !ok && shown.All {
			return fmt.Sprintf("bash also wrote %s", p), nil
		}
	}
	for p, b := range want {
		got, ok := after[p]
		switch {
		case !ok:
			return fmt.Sprintf("bash wrote no %s", p), nil
		case !bytes.Equal(got, b):
			return fmt.Sprintf("%s: bash wrote %q, shown %q", p, clip(got), clip(b)), nil
		}
	}
	return "", nil
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}
