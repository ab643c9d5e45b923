package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

const replayUsage = `acp-proxy replay runs a recorded trace through the filters and writes what
each side would have received, as a trace (or, with --summary, the figures).

Usage:
  acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]

Examples:
  acp-proxy replay --summary --terminal-output --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl
  acp-proxy replay --deltas < in.jsonl | acp-proxy replay --summary
  acp-proxy replay --terminal-output trace.jsonl | jq -c 'select(.dir=="agent->client") | .msg.params.update'

Flags:
`

func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("acp-proxy replay", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg filterConfig
	addFilterFlags(fs, &cfg)
	summary := fs.Bool("summary", false, "print messages and bytes per direction before → after, per filter and per tool call, instead of the trace")
	asJSON := fs.Bool("json", false, "with --summary: print the figures as JSON")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "acp-proxy replay: %v\nusage: acp-proxy replay [filter flags] [--summary [--json]] [TRACE|-]\n", err)
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, replayUsage)
		fmt.Fprint(stdout, fs.FlagUsages())
		return 0
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "acp-proxy replay: at most one TRACE")
		return exitUsage
	}
	in := stdin
	name := "-"
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "acp-proxy replay: %v\n", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	chain := cfg.Chain(capabilities.New())
	chain.OnError = func(d filters.Direction, name string, err error) {
		fmt.Fprintf(stderr, "acp-proxy replay: filter %s failed on a %s message (forwarded unchanged): %v\n", name, d, err)
	}
	sum := proxy.NewSummary(chain)
	var out io.Writer = stdout
	if *summary {
		out = nil
	}
	if err := proxy.Replay(context.Background(), chain, proxy.NewTraceReader(in), out, sum); err != nil {
		var te *proxy.TraceError
		if errors.As(err, &te) {
			fmt.Fprintf(stderr, "acp-proxy replay: %s: %v\n", name, err)
		} else {
			fmt.Fprintf(stderr, "acp-proxy replay: %v\n", err)
		}
		return 1
	}
	if *summary {
		report := sum.Report()
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
