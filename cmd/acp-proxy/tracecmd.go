package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// What the commands that read a trace (replay, view) share.

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
		fmt.Fprintf(stderr, "%s: %v (usage: %s)\n", fs.Name(), err, synopsis)
		return exitUsage
	}
	return -1
}

// openTrace opens the trace fs's one argument names ("-", or none: stdin).
// code ≥ 0 means exit now with it; otherwise call done when finished.
func openTrace(prog string, fs *pflag.FlagSet, stdin io.Reader, stderr io.Writer) (in io.Reader, name string, done func(), code int) {
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "%s: at most one TRACE\n", prog)
		return nil, "", nil, exitUsage
	}
	if fs.NArg() == 0 || fs.Arg(0) == "-" {
		return stdin, "-", func() {}, -1
	}
	name = fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return nil, "", nil, 1
	}
	return f, name, func() { f.Close() }, -1
}

// traceChain is the chain cfg asks for, replaying a trace: a filter that
// fails is reported on stderr (the message goes on unchanged, as live).
func traceChain(prog string, cfg filterConfig, stderr io.Writer) *filters.Chain {
	cfg.replaying = true
	chain := cfg.Chain(capabilities.New())
	chain.OnError = func(d filters.Direction, name string, err error) {
		fmt.Fprintf(stderr, "%s: filter %s failed on a %s message (forwarded unchanged): %v\n", prog, name, d, err)
	}
	return chain
}

// traceFailed reports an error reading or replaying the trace name, and
// returns the exit status.
func traceFailed(prog, name string, err error, stderr io.Writer) int {
	var te *proxy.TraceError
	if errors.As(err, &te) {
		fmt.Fprintf(stderr, "%s: %s: %v\n", prog, name, err)
	} else {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	}
	return 1
}
