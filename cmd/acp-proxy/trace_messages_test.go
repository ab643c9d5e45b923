package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace replay or view cannot use is one line naming the file and what is
// wrong in a user's words, and exit 1; never a temporary file's name, never
// a table of zeros.
func TestTraceCommandsSayWhatIsWrongWithTheTrace(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	notJSON := file("notes.jsonl", "hello world\n")
	acpLog := file("acp.log", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
	empty := file("empty.jsonl", "")
	blank := file("blank.jsonl", "\n  \n")
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"not JSON", []string{notJSON}, "", notJSON + ": trace line 1: not a JSON object, so not a trace record: a trace has one per line, as acp-proxy --record FILE writes them"},
		{"an ACP log", []string{acpLog}, "", acpLog + `: trace line 1: missing "t": this line is an ACP message, not a trace record`},
		{"empty", []string{empty}, "", empty + ": the trace is empty (no records): nothing was recorded into it"},
		{"blank lines only", []string{blank}, "", blank + ": the trace is empty"},
		{"empty stdin", []string{"-"}, "", "stdin: the trace is empty"},
		{"not JSON on stdin", nil, "hello\n", "stdin: trace line 1: not a JSON object"},
		{"a directory", []string{dir}, "", dir + " is a directory, not a trace"},
	} {
		for _, cmd := range []string{"replay", "view"} {
			t.Run(c.name+"/"+cmd, func(t *testing.T) {
				var args []string
				if cmd == "replay" {
					args = append([]string{cmd, "--summary"}, c.args...)
				} else {
					args = append([]string{cmd, "-o", filepath.Join(t.TempDir(), "p.html")}, c.args...)
				}
				var stdout, stderr bytes.Buffer
				code := run(args, strings.NewReader(c.stdin), &stdout, &stderr)
				assert.Equal(t, 1, code)
				assert.Empty(t, stdout.String(), "nothing is shown of a trace that could not be read")
				assert.True(t, strings.HasPrefix(stderr.String(), "acp-proxy "+cmd+": "+c.want), "stderr: %s", stderr.String())
				assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line")
			})
		}
	}
}

// view -o names the page's file as given, never the temporary file it
// writes first.
func TestViewOutputErrorsNameTheGivenFile(t *testing.T) {
	trace := filepath.Join(tracesDir, "codex-0.13-zed-shell-5.jsonl")
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "page.html")
	for _, c := range []struct{ dest, want string }{
		{dir, "acp-proxy view: -o " + dir + ": is a directory; name the page's file (-o " + filepath.Join(dir, "page.html") + ")\n"},
		{missing, "acp-proxy view: -o " + missing + ": cannot create a file in " + filepath.Dir(missing) + ": no such file or directory\n"},
	} {
		var stderr bytes.Buffer
		code := run([]string{"view", "-o", c.dest, trace}, strings.NewReader(""), io.Discard, &stderr)
		assert.Equal(t, 1, code)
		assert.Equal(t, c.want, stderr.String())
	}
}
