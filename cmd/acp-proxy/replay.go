package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acp-proxy/acp-proxy/internal/trace"
)

const replayUsage = `acp-proxy replay runs a recorded trace through the filters and writes what
each side would have received, as a trace (or, with --summary, the figures).

Usage:
  acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]

Examples:
  acp-proxy replay --summary --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl
  acp-proxy replay --deltas < in.jsonl | acp-proxy replay --summary
  acp-proxy replay --terminal-output trace.jsonl |
    jq -c 'select(.dir=="agent->client") | .msg.params.update'

Flags:
`

func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, cfg := traceFlagSet("acp-proxy replay", stderr)
	summary := fs.Bool("summary", false, "print messages and bytes per direction before → after, per filter and per tool call, instead of the trace")
	asJSON := fs.Bool("json", false, "with --summary: print the figures as JSON")
	in, name, done, code := openTraceArgs(fs, args, replayUsage, "acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]", stdin, stdout, stderr)
	if code >= 0 {
		return code
	}
	defer done()
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
