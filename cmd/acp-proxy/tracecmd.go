package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// What the commands that read a trace (replay, view) share.

// traceFlagSet is the flag set of a command that reads a trace (replay,
// view), with the filter flags in it, and the configuration they set.
func traceFlagSet(name string, stderr io.Writer) (*pflag.FlagSet, *filterset.Config) {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &filterset.Config{}
	addFilterFlags(fs, cfg)
	return fs, cfg
}

// openTraceArgs parses args (parseTraceFlags) and opens the trace they name
// (openTrace); code ≥ 0 means exit now with it.
func openTraceArgs(fs *pflag.FlagSet, args []string, usage, synopsis string, stdin io.Reader, stdout, stderr io.Writer) (in *traceInput, name string, done func(), code int) {
	if code := parseTraceFlags(fs, args, usage, synopsis, stdout, stderr); code >= 0 {
		return nil, "", nil, code
	}
	return openTrace(fs.Name(), fs, stdin, stderr)
}

// parseTraceFlags adds -h/--help to fs (named after the command) and
// parses args; code ≥ 0 means exit now with it (help shown, or a usage
// error reported with the one-line synopsis).
func parseTraceFlags(fs *pflag.FlagSet, args []string, usage, synopsis string, stdout, stderr io.Writer) (code int) {
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {} // errors get one line, not the whole help
	err := fs.Parse(args)
	if err == nil && *help {
		printHelp(stdout, usage, fs)
		return 0
	}
	if err == nil {
		err = checkFlagNeeds(fs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v (usage: %s)\n", fs.Name(), didYouMean(fs, err), synopsis)
		return exitUsage
	}
	return -1
}

// openTrace opens the trace fs's one argument names ("-", or none: stdin;
// not a terminal, where nobody types a trace). code ≥ 0 means exit now with
// it; otherwise call done when finished, and check in.Empty() before
// writing what the trace made.
func openTrace(prog string, fs *pflag.FlagSet, stdin io.Reader, stderr io.Writer) (in *traceInput, name string, done func(), code int) {
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "%s: at most one TRACE\n", prog)
		return nil, "", nil, exitUsage
	}
	if fs.NArg() == 0 || fs.Arg(0) == "-" {
		if f, ok := stdin.(*os.File); ok && isTerminal(f) {
			fmt.Fprintf(stderr, "%s: no TRACE given, and stdin is a terminal: name a trace file, or pipe one in\n", prog)
			return nil, "", nil, exitUsage
		}
		return &traceInput{r: trace.Decompress(stdin), src: stdin}, "-", func() {}, -1
	}
	name = fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return nil, "", nil, 1
	}
	if info, err := f.Stat(); err == nil && info.IsDir() {
		f.Close()
		fmt.Fprintf(stderr, "%s: %s is a directory, not a trace\n", prog, name)
		return nil, "", nil, 1
	}
	return &traceInput{r: trace.Decompress(f), src: f}, name, func() { f.Close() }, -1
}

// traceInput is a trace being read (decompressed when gzip'd), which knows
// whether it held anything but blank space.
type traceInput struct {
	r        *trace.Input
	src      io.Reader // what r decompresses: view --follow reads it anew as it grows
	nonBlank bool
}

func (t *traceInput) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if !t.nonBlank && len(rawjson.TrimSpace(p[:n])) > 0 {
		t.nonBlank = true
	}
	return n, err
}

// emptyTrace reports a trace with no records, which there is nothing to
// show of: true when it did and the caller must exit 1. It also says when
// a gzip'd trace was cut short (its records before the cut were read).
func emptyTrace(prog, name string, in *traceInput, stderr io.Writer) bool {
	if name == "-" {
		name = "stdin"
	}
	if err := in.r.Cut(); err != nil {
		fmt.Fprintf(stderr, "%s: %s: %v (was the recording proxy killed?)\n", prog, name, err)
	}
	if in.nonBlank {
		return false
	}
	fmt.Fprintf(stderr, "%s: %s: the trace is empty (no records): nothing was recorded into it\n", prog, name)
	return true
}

// traceChain is the chain cfg asks for, replaying the trace name: a filter
// that fails is reported on stderr (the message goes on unchanged, as live),
// and so is a file the filters read that the trace does not hold.
func traceChain(prog, name string, cfg filterset.Config, stderr io.Writer) *filters.Chain {
	cfg.Replaying = true
	chain := cfg.Chain(capabilities.New())
	chain.OnError = func(d acp.Direction, filter string, err error) {
		fmt.Fprintf(stderr, "%s: filter %s failed on a %s message (forwarded unchanged): %v\n", prog, filter, d, err)
	}
	chain.Disk = &trace.Disk{Missing: func(q filters.DiskRead, err error) {
		fmt.Fprintf(stderr, "%s: %s: %s\n", prog, name, trace.MissingNote(q, err))
	}}
	return chain
}

// traceFailed reports an error reading or replaying the trace name, and
// returns the exit status.
func traceFailed(prog, name string, err error, stderr io.Writer) int {
	var te *trace.Error
	if errors.As(err, &te) {
		if name == "-" {
			name = "stdin"
		}
		fmt.Fprintf(stderr, "%s: %s: %v\n", prog, name, err)
	} else {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	}
	return 1
}
