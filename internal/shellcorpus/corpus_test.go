package shellcorpus

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// all measures the whole corpus; without it, TestShellCorpus takes every
// sampleEvery-th command (running thousands of sandboxed shells takes a
// minute or more).
var all = flag.Bool("all", false, "measure the whole shell corpus, not a sample")

const sampleEvery = 16

// recognise is the recogniser the corpus benchmark measures. To measure
// another, set it here (or wrap it: see Today).
var recognise Recogniser = Scripts

const corpusPath = "../../testdata/shellcorpus/commands.jsonl"

// TestShellCorpus measures recognise on the corpus of real models' shell
// writes, and fails on any command shown wrongly. With -v it prints the
// tables of BENCHMARKS.md.
func TestShellCorpus(t *testing.T) {
	entries, err := Load(corpusPath)
	require.NoError(t, err)
	what := "the whole corpus"
	if !*all {
		entries = sample(entries, sampleEvery)
		what = fmt.Sprintf("every %dth command (-args -all for all)", sampleEvery)
	}
	tmp := sandboxParent(t)
	run, err := NewBashRunner(tmp)
	if err != nil {
		t.Logf("shown commands are not run: %v", err)
	}
	res, err := Measure(entries, recognise, run, tmp)
	require.NoError(t, err)
	if testing.Verbose() {
		fmt.Printf("%s: %d commands, %d not parsed\n\n%s", what, len(entries), res.Unparsed, Table(res))
	}
	for _, m := range res.Wrong {
		assert.Failf(t, "shown wrongly", "%s (%s, %s): %s\n%s", m.Entry.File, m.Entry.Source, m.Entry.Cwd, m.Reason, m.Entry.Command)
	}
}

func sample(entries []Entry, every int) []Entry {
	var s []Entry
	for i := 0; i < len(entries); i += every {
		s = append(s, entries[i])
	}
	return s
}

// sandboxParent is a directory the sandboxed user can reach, removed after t.
func sandboxParent(t *testing.T) string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "shellcorpus-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(tmp) })
	require.NoError(t, os.Chmod(tmp, 0o755))
	return tmp
}
