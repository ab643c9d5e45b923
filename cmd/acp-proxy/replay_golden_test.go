package main

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/internal/linediff"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The golden test replays every committed trace in testdata/traces through
// `acp-proxy replay` (in process, with the CLI's own flag parsing) with
// each filter combination, and compares the output, byte for byte, with
// testdata/traces/golden/<trace>/<combination>.jsonl, and the --summary
// --json figures with <combination>.summary.json.
//
//	go test ./cmd/acp-proxy -run TestReplayGoldens             # check
//	go test ./cmd/acp-proxy -run TestReplayGoldens -update     # rewrite; then review `git diff testdata/traces/golden`
var update = flag.Bool("update", false, "rewrite testdata/traces/golden/ from the current filters (review the diff: goldens are reviewed, not blindly regenerated)")

const (
	tracesDir = "../../testdata/traces"
	goldenDir = tracesDir + "/golden"
)

// generatedTraces are made by scripts/make-big-trace, too big to commit:
// they have no goldens.
var generatedTraces = []string{"codex-0.13-plain-35001"}

// replayCombo is one filter combination: its golden file name and flags.
type replayCombo struct {
	name  string
	flags []string
}

var replayCombos = []replayCombo{
	{"none", nil},
	{"terminal-output", []string{"--terminal-output"}},
	{"deltas", []string{"--deltas"}},
	{"terminal-output+deltas", []string{"--terminal-output", "--deltas"}},
	{"shell-to-patch", []string{"--shell-to-patch"}},
	{"all", []string{"--shell-to-patch", "--terminal-output", "--deltas"}},
}

// savedOutput reports whether the agent names a file it saved the output
// to: the Claude CLI's <persisted-output> preview or its "[Output
// truncated (N bytes total): full output saved to PATH]" note
// (claude-agent-acp 0.101), or opencode's "Full output saved to: PATH".
func savedOutput(trace []byte) bool {
	return bytes.Contains(trace, []byte("<persisted-output>")) ||
		bytes.Contains(bytes.ToLower(trace), []byte("full output saved to"))
}

// persistedCombos are added for traces where the agent saved the output to
// a file (savedOutput).
var persistedCombos = []replayCombo{
	{"expand-persisted-output", []string{"--expand-persisted-output"}},
	{"all+expand-persisted-output", []string{"--shell-to-patch", "--terminal-output", "--deltas", "--expand-persisted-output"}},
}

func TestReplayGoldens(t *testing.T) {
	names := committedTraces(t)
	require.NotEmpty(t, names, "no traces in %s", tracesDir)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(tracesDir, name+".jsonl")
			trace, err := os.ReadFile(path)
			require.NoError(t, err)
			// shell-to-patch and expand-persisted-output read files the
			// trace names: the trace holds what they read ("read"
			// records), so nothing of this machine's disk is used, and
			// replayOK fails on the note a missing one would print.

			combos := replayCombos
			if savedOutput(trace) {
				combos = append(slices.Clip(combos), persistedCombos...)
			}
			want := map[string]bool{}
			for _, c := range combos {
				want[c.name+".jsonl"], want[c.name+".summary.json"] = true, true
				t.Run(c.name, func(t *testing.T) {
					out := replayOK(t, append(slices.Clip(c.flags), path)...)
					if c.name == "none" {
						// With no filter a replay is the recording
						// (which has no "out" fields: it was recorded
						// with no filter either).
						sameLines(t, trace, out)
					}
					checkGolden(t, filepath.Join(goldenDir, name, c.name+".jsonl"), out)
					sum := replayOK(t, append(append([]string{"--summary", "--json"}, c.flags...), path)...)
					checkGolden(t, filepath.Join(goldenDir, name, c.name+".summary.json"), sum)
				})
			}
			checkNoStaleGoldens(t, filepath.Join(goldenDir, name), want)
		})
	}
	entries, _ := os.ReadDir(goldenDir)
	for _, e := range entries {
		if slices.Contains(names, e.Name()) {
			continue
		}
		if !*update {
			assert.Failf(t, "goldens of a trace that is gone", "%s (-update removes them)", e.Name())
			continue
		}
		t.Logf("removing goldens of a trace that is gone: %s", e.Name())
		require.NoError(t, os.RemoveAll(filepath.Join(goldenDir, e.Name())))
	}
}

// committedTraces are the names of testdata/traces/*.jsonl, without the
// generated ones.
func committedTraces(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(tracesDir, "*.jsonl"))
	require.NoError(t, err)
	var names []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		if !slices.Contains(generatedTraces, name) {
			names = append(names, name)
		}
	}
	return names
}

// replayOK runs `acp-proxy replay args...` and returns its stdout; it
// fails on a non-zero exit or anything on stderr (a filter failure).
func replayOK(t *testing.T, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"replay"}, args...), strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, "acp-proxy replay %q: %s", args, stderr.String())
	require.Empty(t, stderr.String(), "acp-proxy replay %q", args)
	return stdout.Bytes()
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		old, err := os.ReadFile(path)
		if err == nil && bytes.Equal(old, got) {
			return
		}
		require.NoError(t, os.WriteFile(path, got, 0o644))
		t.Logf("updated %s", path)
		return
	}
	want, err := os.ReadFile(path)
	require.NotErrorIs(t, err, fs.ErrNotExist, "no golden %s: run go test ./cmd/acp-proxy -run TestReplayGoldens -update, and review it", path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "%s: %s\n(if the change is intended: -update, and review the diff)", path, firstDifference(want, got))
}

// checkNoStaleGoldens fails on (or, with -update, removes) golden files no
// combination produces.
func checkNoStaleGoldens(t *testing.T, dir string, want map[string]bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if want[e.Name()] {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if *update {
			require.NoError(t, os.RemoveAll(p))
			t.Logf("removed stale golden %s", p)
			continue
		}
		assert.Failf(t, "a stale golden", "%s: no filter combination produces it (-update removes it)", p)
	}
}

// firstDifference describes where two traces first differ, by line.
func firstDifference(want, got []byte) string {
	if d := linediff.Streams(want, got); d != "" {
		return d
	}
	return "identical"
}

func sameLines(t *testing.T, want, got []byte) {
	t.Helper()
	assert.Equal(t, string(want), string(got), "a replay with no filter is not the recording: %s", firstDifference(want, got))
}

// TestReplayOfAMalformedTraceNamesTheLine: a broken trace is an error that
// says which line, and nothing is half-replayed silently.
func TestReplayOfAMalformedTraceNamesTheLine(t *testing.T) {
	good := `{"t":0.1,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}` + "\n"
	for _, c := range []struct{ name, line, want string }{
		{"not json", `{"t":0.2,"dir":`, "trace line 3: not a JSON object"},
		{"bad dir", `{"t":0.2,"dir":"sideways","msg":{}}`, `trace line 3: "dir" must be`},
		{"no t", `{"dir":"client->agent","msg":{}}`, `trace line 3: missing "t"`},
		{"no line", `{"t":0.2,"dir":"client->agent"}`, `trace line 3: record has none of`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "bad.jsonl")
			require.NoError(t, os.WriteFile(f, []byte(good+"\n"+c.line+"\n"+good), 0o644))
			var stdout, stderr bytes.Buffer
			code := run([]string{"replay", "--deltas", f}, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr.String(), f+": "+c.want)
		})
	}
}
