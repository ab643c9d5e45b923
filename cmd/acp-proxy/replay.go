package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/proxy"
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
	fs := pflag.NewFlagSet("acp-proxy replay", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg filterset.Config
	addFilterFlags(fs, &cfg)
	summary := fs.Bool("summary", false, "print messages and bytes per direction before → after, per filter and per tool call, instead of the trace")
	asJSON := fs.Bool("json", false, "with --summary: print the figures as JSON")
	if code := parseTraceFlags(fs, args, replayUsage, "acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]", stdout, stderr); code >= 0 {
		return code
	}
	in, name, done, code := openTrace("acp-proxy replay", fs, stdin, stderr)
	if code >= 0 {
		return code
	}
	defer done()
	var sums []*proxy.Summary
	newConn := func(int) proxy.Connection {
		chain := traceChain("acp-proxy replay", name, cfg, stderr)
		sum := proxy.NewSummary(chain)
		sums = append(sums, sum)
		return proxy.Connection{Chain: chain, Summary: sum}
	}
	var out io.Writer = stdout
	if *summary {
		out = nil
	}
	if err := proxy.ReplayConnections(context.Background(), proxy.NewTraceReader(in), out, newConn); err != nil {
		return traceFailed("acp-proxy replay", name, err, stderr)
	}
	if emptyTrace("acp-proxy replay", name, in, stderr) {
		return 1
	}
	if *summary {
		report := proxy.NewTraceReport(sums)
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
