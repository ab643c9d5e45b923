package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
)

// run writes only to the streams it is given: main passes the process's,
// a test or an embedding program its own.
func TestHelpAndVersionAnswerOnTheGivenStdout(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string // how stdout starts
	}{
		"--help":        {[]string{"--help"}, "acp-proxy relays the Agent Client Protocol"},
		"-h":            {[]string{"-h"}, "acp-proxy relays the Agent Client Protocol"},
		"--version":     {[]string{"--version"}, "acp-proxy "},
		"version":       {[]string{"version"}, "acp-proxy "},
		"help version":  {[]string{"help", "version"}, "usage: acp-proxy version"},
		"replay --help": {[]string{"replay", "--help"}, "acp-proxy replay"},
		"flags, --help": {[]string{"--stats", "--help"}, "acp-proxy relays the Agent Client Protocol"},
		// As go help and gh help: help [COMMAND] is COMMAND --help.
		"help":        {[]string{"help"}, "acp-proxy relays the Agent Client Protocol"},
		"help doctor": {[]string{"help", "doctor"}, "acp-proxy doctor starts AGENT"},
		"help view":   {[]string{"help", "view"}, "acp-proxy view"},
	}
	for name, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 0, code, name)
		assert.True(t, strings.HasPrefix(stdout.String(), c.want), "%s: stdout %q", name, stdout.String())
		assert.Empty(t, stderr.String(), name)
	}
}

// Every help fits 100 columns, and the main one names every subcommand
// and where to find the flags for an editor.
func TestHelpFits100ColumnsAndListsTheSubcommands(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"replay", "--help"}, {"view", "--help"}, {"doctor", "--help"}, {"policy", "--help"}} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run(args, strings.NewReader(""), &stdout, &stderr), "%q: %s", args, stderr.String())
		for i, line := range strings.Split(stdout.String(), "\n") {
			assert.LessOrEqual(t, utf8.RuneCountInString(line), 100, "%q line %d: %s", args, i+1, line)
		}
	}
	var stdout bytes.Buffer
	run([]string{"--help"}, strings.NewReader(""), &stdout, &stdout)
	for _, want := range []string{"acp-proxy doctor [filter flags] -- AGENT", "acp-proxy replay", "acp-proxy view", "acp-proxy COMMAND --help", "Which filters to enable"} {
		assert.Contains(t, stdout.String(), want)
	}
}

// Durations in the log read as people write them.
func TestLogsWriteDurationsReadably(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy.log")
	logger, closeLog, err := openLog(path, "info", &bytes.Buffer{})
	require.NoError(t, err)
	logger.Info("agent exited", "after", 1500*time.Millisecond, "grace", time.Second)
	closeLog()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"after":"1.5s","grace":"1s"`)

	var stderr bytes.Buffer
	logger, _, err = openLog("", "info", &stderr)
	require.NoError(t, err)
	logger.Error("agent failed", "after", 250*time.Millisecond)
	assert.Contains(t, stderr.String(), "after=250ms")
}

// The log holds the live view's URL with its token: a log file the proxy
// creates is readable by its owner only.
func TestTheLogFileIsCreatedReadableByItsOwnerOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "proxy.log")
	_, closeLog, err := openLog(path, "info", &bytes.Buffer{})
	require.NoError(t, err)
	closeLog()
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestHelpOfAnUnknownCommandIsAUsageError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, exitUsage, run([]string{"help", "nope"}, strings.NewReader(""), &stdout, &stderr))
	assert.Empty(t, stdout.String())
	assert.Equal(t, "acp-proxy help: unknown command \"nope\" (commands: doctor, policy, replay, version, view; usage: acp-proxy help [COMMAND])\n", stderr.String())
}

// An editor's JSON config has no shell: "--record", "~/acp.jsonl" reaches
// the proxy with the ~, which names the home directory as git's config does.
func TestPathFlagsExpandALeadingTilde(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home) // Windows' home
	in := `{"jsonrpc":"2.0","method":"x"}` + "\n"
	var stdout, stderr bytes.Buffer
	code := run([]string{"--record", "~/acp.jsonl", "--log-file", "~/proxy.log", "--", "cat"}, strings.NewReader(in), &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s", stderr.String())
	assert.Equal(t, in, stdout.String())
	assert.FileExists(t, filepath.Join(home, "acp.jsonl"))
	assert.FileExists(t, filepath.Join(home, "proxy.log"))

	for in, want := range map[string]string{
		"~/a/b": filepath.Join(home, "a", "b"), "~": home, "~user/x": "~user/x", "a/~/b": "a/~/b", "-": "-",
	} {
		got, err := expandHome(in)
		require.NoError(t, err)
		assert.Equal(t, filepath.Clean(want), filepath.Clean(got), in)
	}
}

// A mistyped flag is answered with the flag it most likely meant, on the one line of the usage
// error: a typo, a long flag with one dash, the start of a flag's name; a name like none gets
// no guess.
func TestAMistypedFlagSaysWhichOneItMeant(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" : no guess
	}{
		{[]string{"--recrod", "x.jsonl", "--", "cat"}, "acp-proxy: unknown flag: --recrod; did you mean --record? ("},
		{[]string{"--log_file", "x", "--", "cat"}, "did you mean --log-file?"},
		{[]string{"-record", "x.jsonl", "--", "cat"}, "did you mean --record?"},
		{[]string{"-record=x.jsonl", "--", "cat"}, "did you mean --record?"},
		{[]string{"--terminal-outptu", "--", "cat"}, "did you mean --terminal-output?"},
		{[]string{"--expand", "--", "cat"}, "did you mean --expand-persisted-output?"},
		{[]string{"doctor", "--timout", "1s", "--", "cat"}, "acp-proxy doctor: unknown flag: --timout; did you mean --timeout? ("},
		{[]string{"replay", "--delta", "x.jsonl"}, "did you mean --deltas?"},
		{[]string{"view", "--folow", "x.jsonl"}, "did you mean --follow?"},
		{[]string{"--no-such-flag", "--", "cat"}, ""},
		{[]string{"-x", "--", "cat"}, ""},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitUsage, run(c.args, strings.NewReader(""), &stdout, &stderr), "%q", c.args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%q: one line: %s", c.args, stderr.String())
		if c.want == "" {
			assert.NotContains(t, stderr.String(), "did you mean", "%q", c.args)
		} else {
			assert.Contains(t, stderr.String(), c.want, "%q", c.args)
		}
	}
}

// --help says what --shell-to-patch does in the README's words (its flags table): every file a
// command provably writes, not one.
func TestHelpDescribesShellToPatchAsTheREADMEDoes(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?m)^\\| `--shell-to-patch` \\| off \\| (.*) \\|$").FindSubmatch(readme)
	require.NotNil(t, m, "the README's flags table has a --shell-to-patch row")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"--help"}, strings.NewReader(""), &stdout, &stderr))
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	addFilterFlags(fs, &filterset.Config{})
	usage := fs.Lookup("shell-to-patch").Usage
	assert.Equal(t, strings.ReplaceAll(string(m[1]), "`", ""), usage)
	assert.Contains(t, strings.Join(strings.Fields(stdout.String()), " "), usage, "--help shows it")
}

// A trace and a page hold prompts, files and command output: the proxy
// creates them readable by their owner only; a file that exists keeps the
// mode its owner gave it.
func TestTracesAndPagesAreCreatedReadableByTheirOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	in := `{"jsonrpc":"2.0","method":"x"}` + "\n"
	kept := filepath.Join(dir, "kept.jsonl")
	require.NoError(t, os.WriteFile(kept, nil, 0o640))
	require.NoError(t, os.Chmod(kept, 0o640)) // whatever the umask
	for _, c := range []struct {
		name string
		mode os.FileMode
	}{{"new.jsonl", 0o600}, {"new.jsonl.gz", 0o600}, {"kept.jsonl", 0o640}} {
		path := filepath.Join(dir, c.name)
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run([]string{"--record", path, "--", "cat"}, strings.NewReader(in), &stdout, &stderr), stderr.String())
		st, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, c.mode, st.Mode().Perm(), c.name)
	}
	page := filepath.Join(dir, "page.html")
	for _, mode := range []os.FileMode{0o600, 0o644} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run([]string{"view", "-o", page, filepath.Join(dir, "new.jsonl")}, strings.NewReader(""), &stdout, &stderr), stderr.String())
		st, err := os.Stat(page)
		require.NoError(t, err)
		assert.Equal(t, mode, st.Mode().Perm(), "page")
		require.NoError(t, os.Chmod(page, 0o644)) // the next page replaces one its owner shared
	}
}
