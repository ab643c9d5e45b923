package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/filters/output"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// A value that means nothing, or a flag that means nothing without
// another, is a usage error: exit 2 and one line naming the flag, before
// any agent runs.
func TestFlagsThatMeanNothingAreUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"--deltas", "--coalesce-interval", "-1ms"}, `"--coalesce-interval" flag: must not be negative`},
		{[]string{"--deltas", "--live-tail-bytes", "-5"}, `"--live-tail-bytes" flag: must be at least 1 byte`},
		{[]string{"--deltas", "--live-tail-bytes", "0"}, `"--live-tail-bytes" flag: must be at least 1 byte`},
		{[]string{"--terminal-output", "--max-output-bytes", "-1"}, `"--max-output-bytes" flag: must be at least 1 byte`},
		{[]string{"--max-filter-line", "0"}, `"--max-filter-line" flag: must be at least 1 byte`},
		{[]string{"--grace", "-1s"}, `"--grace" flag: must not be negative`},
		{[]string{"--grace", "soon"}, `"--grace" flag: a duration is a number with a unit`},
		{[]string{"--shell-to-patch", "--max-patch-bytes", "1.5MiB"}, `"--max-patch-bytes" flag: a size is a whole number of bytes`},
		{[]string{"--max-filter-line", "8EiB"}, `"--max-filter-line" flag: a size is a whole number of bytes`},
		{[]string{"--max-filter-line", "9000000000GiB"}, `"--max-filter-line" flag: too large`},
		{[]string{"--log-level", "debug"}, "--log-level means nothing without --log-file"},
		{[]string{"--max-patch-bytes", "1MiB"}, "--max-patch-bytes means nothing without --shell-to-patch"},
		{[]string{"--patch-outside-cwd"}, "--patch-outside-cwd means nothing without --shell-to-patch"},
		{[]string{"--expand-persisted-output", "--coalesce-interval", "1s"}, "--coalesce-interval means nothing without --terminal-output or --deltas"},
		{[]string{"--deltas", "--max-output-bytes", "1MiB"}, "--max-output-bytes means nothing without --terminal-output or --expand-persisted-output"},
		{[]string{"--terminal-output=false", "--live-tail-bytes", "1KiB"}, "--live-tail-bytes means nothing without --terminal-output or --deltas"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(append(c.args, "--", "acp-proxy-never-started"), strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "%q", c.args)
		assert.Contains(t, stderr.String(), c.says, "%q", c.args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
		assert.Empty(t, stdout.String())
	}
}

func TestReplayAndViewRefuseFlagsThatMeanNothingAlone(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"replay", "--json", "x.jsonl"}, "acp-proxy replay: --json means nothing without --summary"},
		{[]string{"replay", "--patch-outside-cwd", "x.jsonl"}, "acp-proxy replay: --patch-outside-cwd means nothing without --shell-to-patch"},
		{[]string{"view", "--live-tail-bytes", "-5", "x.jsonl"}, `acp-proxy view: invalid argument "-5" for "--live-tail-bytes" flag`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, exitUsage, code, "%q", c.args)
		assert.True(t, strings.HasPrefix(stderr.String(), c.says), "%q: %s", c.args, stderr.String())
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
	}
}

// Sizes take a unit, binary or decimal, and print in the largest binary
// unit that divides them; 0 means "none" where it has a meaning.
func TestFlagValuesAreReadAsWritten(t *testing.T) {
	cases := []struct {
		args  []string
		check func(t *testing.T, o options)
	}{
		{[]string{"--deltas", "--live-tail-bytes", "64KiB"}, func(t *testing.T, o options) { assert.Equal(t, 64<<10, o.filters.LiveTailBytes) }},
		{[]string{"--deltas", "--live-tail-bytes", "64 kib"}, func(t *testing.T, o options) { assert.Equal(t, 64<<10, o.filters.LiveTailBytes) }},
		{[]string{"--deltas", "--live-tail-bytes", "2KB"}, func(t *testing.T, o options) { assert.Equal(t, 2000, o.filters.LiveTailBytes) }},
		{[]string{"--deltas", "--live-tail-bytes", "4096B"}, func(t *testing.T, o options) { assert.Equal(t, 4096, o.filters.LiveTailBytes) }},
		{[]string{"--terminal-output", "--max-output-bytes", "3MB"}, func(t *testing.T, o options) { assert.Equal(t, int64(3e6), o.filters.MaxOutputBytes) }},
		{[]string{"--max-filter-line", "1MiB"}, func(t *testing.T, o options) { assert.Equal(t, 1<<20, o.maxFilterLine) }},
		{[]string{"--shell-to-patch", "--max-patch-bytes", "12345"}, func(t *testing.T, o options) { assert.Equal(t, int64(12345), o.filters.MaxPatchBytes) }},
		{[]string{"--deltas", "--coalesce-interval", "0"}, func(t *testing.T, o options) { assert.Equal(t, output.NoCoalescing, o.filters.CoalesceInterval) }},
		{[]string{"--deltas", "--coalesce-interval", "1.5s"}, func(t *testing.T, o options) { assert.Equal(t, 1500*time.Millisecond, o.filters.CoalesceInterval) }},
		{[]string{"--grace", "0"}, func(t *testing.T, o options) { assert.Equal(t, proxy.NoGrace, o.grace) }},
		{[]string{"--log-file", "x.log", "--log-level", "debug"}, func(t *testing.T, o options) { assert.Equal(t, "debug", o.logLevel) }},
		{nil, func(t *testing.T, o options) {
			assert.Equal(t, output.DefaultCoalesceInterval, o.filters.CoalesceInterval)
			assert.Equal(t, proxy.DefaultGrace, o.grace)
		}},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		o, _, code := parseLive(append(c.args, "--", "agent"), &stdout, &stderr)
		require.Equal(t, -1, code, "%q: %s", c.args, stderr.String())
		c.check(t, o)
	}
}

func TestHelpPrintsSizesInUnitsAndZeroAsNone(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"--help"}, strings.NewReader(""), &stdout, &stderr))
	help := stdout.String()
	for _, want := range []string{"(default 64KiB)", "(default 8MiB)", "(default 4MiB)", "(default 16MiB)", "(default 100ms)", "(default 1s)"} {
		assert.Contains(t, help, want)
	}
	assert.Equal(t, "0s", durationValue{p: new(time.Duration), zero: 0}.String())
	assert.Equal(t, "1000", formatSize(1000))
	assert.Equal(t, "3MiB", formatSize(3<<20))
}
