package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heredocTrace is a committed trace whose session writes hello.py with a
// heredoc, moved to a session directory under dir: every mention of the
// recording's temporary directory names dir instead. With reads false, its
// "read" records are left out, as in a trace recorded before traces held
// them.
func heredocTrace(t *testing.T, dir string, reads bool) (trace, session string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tracesDir, "codex-0.13-plain-heredoc.jsonl"))
	require.NoError(t, err)
	recorded := regexp.MustCompile(`/tmp/TestRecordFixtures[^/"]+/001`).Find(b)
	require.NotNil(t, recorded)
	b = bytes.ReplaceAll(b, recorded, []byte(dir))
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if reads || !bytes.Contains(line, []byte(`"read":{`)) {
			out = append(out, line...)
		}
	}
	path := filepath.Join(t.TempDir(), "heredoc.jsonl")
	require.NoError(t, os.WriteFile(path, out, 0o644))
	return path, filepath.Join(dir, "project")
}

func replayRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"replay"}, args...), strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

// A replay gives what the live proxy gave, whatever this machine holds at
// the recorded paths: here a hello.py the session never saw.
func TestReplayOfASelfContainedTraceIgnoresThisMachinesFiles(t *testing.T) {
	for name, prepare := range map[string]func(project string){
		"nothing there": func(string) {},
		"another hello.py there": func(project string) {
			require.NoError(t, os.MkdirAll(project, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, "hello.py"), []byte("print('not the session')\n"), 0o644))
		},
	} {
		t.Run(name, func(t *testing.T) {
			trace, project := heredocTrace(t, t.TempDir(), true)
			prepare(project)
			code, out, stderr := replayRun(t, "--shell-to-patch", trace)
			require.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr)
			assert.Contains(t, out, `"type":"diff","path":"`+filepath.Join(project, "hello.py")+`","oldText":null`, "the new file's diff, as live")
			assert.NotContains(t, out, "not the session")
		})
	}
}

// A trace without "read" records is replayed against this machine's disk,
// and the replay says which file it did not find and what it did instead.
func TestReplayOfATraceWithoutReadsSaysWhichFilesItLacked(t *testing.T) {
	trace, project := heredocTrace(t, t.TempDir(), false)
	code, out, stderr := replayRun(t, "--shell-to-patch", trace)
	require.Equal(t, 0, code, stderr)
	target := filepath.Join(project, "hello.py")
	assert.True(t, strings.HasPrefix(stderr, "acp-proxy replay: "+trace+": the trace does not hold the target of a shell write (--shell-to-patch) "+target+
		", and this machine's copy could not be used ("), stderr)
	assert.True(t, strings.HasSuffix(stderr, "no such file or directory): the filter left it alone\n"), stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line for the file")
	assert.NotContains(t, out, `"type":"diff"`)

	require.NoError(t, os.MkdirAll(project, 0o755))
	code, out, stderr = replayRun(t, "--shell-to-patch", trace)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "used this machine's copy, which may differ from the recording's")
	assert.Contains(t, out, `"type":"diff"`)
}
