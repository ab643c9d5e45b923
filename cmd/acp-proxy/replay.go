package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/internal/trace"
)

const replayUsage = `acp-proxy replay runs a recorded trace through the filters and writes what
each side would have received, as a trace (or, with --summary, the figures).

Usage:
  acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]
  acp-proxy replay --redact [TRACE|-]

A trace holds the session: prompts, file contents, command output. --redact
writes it with every text replaced, its structure, sizes and timing kept,
to share it (README: Sharing a trace). TRACE may be gzip'd.

Examples:
  acp-proxy replay --summary --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl
  acp-proxy replay --redact ~/acp.jsonl.gz > shared.jsonl
  acp-proxy replay --deltas < in.jsonl | acp-proxy replay --summary
  acp-proxy replay --terminal-output trace.jsonl |
    jq -c 'select(.dir=="agent->client") | .msg.params.update'

Flags:
`

func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, cfg := traceFlagSet("acp-proxy replay", stderr)
	summary := fs.Bool("summary", false, "print messages and bytes per direction before → after, per filter and per tool call, instead of the trace")
	asJSON := fs.Bool("json", false, "with --summary: print the figures as JSON")
	redact := fs.Bool("redact", false, "write the trace as recorded with every text replaced (prompts, file contents, paths, command output), to share it; no filter flags")
	in, name, done, code := openTraceArgs(fs, args, replayUsage, replaySynopsis, stdin, stdout, stderr)
	if code >= 0 {
		return code
	}
	defer done()
	if *redact {
		return runRedact(fs, in, name, stdout, stderr)
	}
	var sums []*trace.Summary
	out := trace.NewDelivered(stdout, false)
	newConn := func(int) trace.Connection {
		chain := traceChain("acp-proxy replay", name, *cfg, stderr)
		sum := trace.NewSummary(chain)
		sums = append(sums, sum)
		if *summary {
			return trace.Connection{Chain: chain, Sinks: []trace.Sink{sum}}
		}
		return trace.Connection{Chain: chain, Sinks: []trace.Sink{out, sum}}
	}
	if err := trace.Replay(context.Background(), trace.NewReader(in), newConn); err != nil {
		return traceFailed("acp-proxy replay", name, err, stderr)
	}
	if emptyTrace("acp-proxy replay", name, in, stderr) {
		return 1
	}
	if *summary {
		report := trace.NewReport(sums)
		var err error
		if *asJSON {
			err = report.WriteJSON(stdout)
		} else {
			err = report.WriteText(stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "acp-proxy replay: %v\n", err)
			return 1
		}
	}
	return 0
}

const replaySynopsis = "acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-], or acp-proxy replay --redact [TRACE|-]"

// runRedact is replay --redact: the trace in, redacted, to stdout.
func runRedact(fs *pflag.FlagSet, in *traceInput, name string, stdout, stderr io.Writer) int {
	var other []string
	fs.Visit(func(f *pflag.Flag) {
		if f.Name != "redact" && given(f) {
			other = append(other, "--"+f.Name)
		}
	})
	if len(other) > 0 {
		fmt.Fprintf(stderr, "acp-proxy replay: --redact writes the trace as recorded, so it takes no %s: "+
			"replay the redacted trace with them (usage: %s)\n", strings.Join(other, " "), replaySynopsis)
		return exitUsage
	}
	if err := trace.Redact(trace.NewReader(in), stdout); err != nil {
		return traceFailed("acp-proxy replay", name, err, stderr)
	}
	if emptyTrace("acp-proxy replay", name, in, stderr) {
		return 1
	}
	return 0
}
