package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/internal/live"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// The live view: --serve on the relay, view --follow on a trace.

// serveLinger is how long the proxy, once the session ended, waits for
// open pages to be sent its last data before it exits.
const serveLinger = time.Second

// addServeFlag adds --serve to the live proxy's flags.
func addServeFlag(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "serve", "", "serve a live view of the session at HOST:PORT (:0: any free port on loopback); its URL, with a token, goes to stderr and the log")
}

// serveLive starts --serve's live view of the relay's session (none
// without an address), with times from start (as --record's: the
// monotonic clock, which info.Started, in UTC, has lost): its tap joins
// the relay's, and its URL goes to stderr and the log. stop sends open
// pages the last data and stops serving; code ≥ 0 means exit now.
func serveLive(relay *proxy.Relay, addr string, start time.Time, info trace.ConnectionInfo, logger *slog.Logger, stderr io.Writer) (stop func(), code int) {
	if addr == "" {
		return func() {}, -1
	}
	srv, err := live.Listen(addr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-proxy: --serve: %v\n", err)
		return nil, exitUsage
	}
	var flags []string
	for _, f := range relay.Chain.Stats() { // before the relay runs: nothing else reads the chain yet
		flags = append(flags, f.Flag)
	}
	title := "live: " + filepath.Base(info.Agent[0])
	srv.Log = logger
	tap := srv.Relay(title, flags, start, info)
	relay.Taps = append(relay.Taps, tap)
	if relay.Chain.Audits() {
		relay.Chain.ListenNotes(tap.Note) // the policy's decisions show in the conversation
	}
	announce("acp-proxy", srv, logger, stderr)
	return func() { srv.Close(serveLinger) }, -1
}

// announce prints the live view's URL to stderr and the log, and warns
// when it can be reached from beyond this machine.
func announce(prog string, srv *live.Server, logger *slog.Logger, stderr io.Writer) {
	fmt.Fprintf(stderr, "%s: live view at %s\n", prog, srv.URL())
	logger.Info("live view", "url", srv.URL(), "exposed", srv.Exposed())
	if srv.Exposed() {
		fmt.Fprintf(stderr, "%s: the live view listens beyond loopback: anyone who can reach this address and has the URL (its token) can watch the session\n", prog)
	}
}

// runFollow is view --follow (or view --serve without it, a usage
// error): it serves the live page of the trace in in (named name), as
// another proxy appends to it, until interrupted.
func runFollow(fs *pflag.FlagSet, filterFlags map[string]bool, follow bool, addr string, in io.Reader, name string, stderr io.Writer) int {
	bad := ""
	fs.Visit(func(f *pflag.Flag) {
		if filterFlags[f.Name] || f.Name == "output" {
			bad = "--" + f.Name
		}
	})
	switch {
	case !follow:
		fmt.Fprintln(stderr, "acp-proxy view: --serve means nothing without --follow")
		return exitUsage
	case bad != "":
		fmt.Fprintf(stderr, "acp-proxy view: --follow shows the trace as recorded, with what its proxy's filters sent; %s is for a page of a finished trace\n", bad)
		return exitUsage
	case name == "-":
		fmt.Fprintln(stderr, "acp-proxy view: --follow needs a TRACE file to follow, not stdin")
		return exitUsage
	}
	srv, err := live.Listen(addr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-proxy view: --serve: %v\n", err)
		return exitUsage
	}
	srv.Log = slog.New(slog.NewTextHandler(stderr, nil))
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer cancel()
	announce("acp-proxy view", srv, slog.New(slog.DiscardHandler), stderr)
	fmt.Fprintf(stderr, "acp-proxy view: following %s; Ctrl-C stops\n", name)
	err = srv.Follow(ctx, in, filepath.Base(name))
	srv.Close(0)
	if err != nil {
		return traceFailed("acp-proxy view", name, err, stderr)
	}
	return 0
}
