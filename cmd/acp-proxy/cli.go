package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/internal/doctor"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// versionString is version, or else the module version `go install …@v1.2.3`
// recorded in the binary.
func versionString() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

const usageText = `acp-proxy relays the Agent Client Protocol between an editor and an agent,
byte for byte, with optional filters.

Usage:
  acp-proxy [flags] -- AGENT [ARGS...]       run AGENT for an editor (put this in its config)
  acp-proxy doctor [filter flags] -- AGENT   what AGENT advertises, and the flags for each editor
  acp-proxy replay [filter flags] [TRACE|-]  run a recorded trace through the filters
  acp-proxy view [filter flags] [TRACE|-]    make an HTML page of a recorded trace
  acp-proxy policy check --policy FILE TRACE...  what a policy would have decided in a trace
  acp-proxy COMMAND --help                   the flags and examples of doctor, policy, replay, view
  acp-proxy help [COMMAND]                   the same, as go help does
  acp-proxy version                          print the version (also --version)

Which flags your editor and agent want: run acp-proxy doctor with the agent's command, or see
the README's "Which filters to enable" (Zed, JetBrains, agent-shell, codecompanion, acpx).
With no filter flag the proxy is a byte-exact relay.

Examples:
  acp-proxy doctor -- codex-acp
  acp-proxy --terminal-output --deltas -- npx @zed-industries/codex-acp
  acp-proxy --record /tmp/session.jsonl --log-file /tmp/acp-proxy.log -- claude-agent-acp
  acp-proxy --serve :0 --log-file /tmp/acp-proxy.log -- codex-acp   (watch it live: URL in the log)
  acp-proxy replay --summary --deltas testdata/traces/codex-0.13-plain-shell-900.jsonl

Flags:
`

// liveSynopsis ends a usage error of the live proxy.
const liveSynopsis = "usage: acp-proxy [flags] -- AGENT [ARGS...]; acp-proxy --help for more"

// exitUsage is the exit status for a command line that cannot be run.
const exitUsage = 2

// options are the flags of the live proxy.
type options struct {
	logFile, logLevel, record string
	serve                     string
	stats, version            bool
	grace                     time.Duration
	maxFilterLine             int
	filters                   filterset.Config
	otel                      otelOptions
}

// subcommands are acp-proxy's commands besides the live proxy.
var subcommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"replay":  runReplay,
	"view":    runView,
	"doctor":  runDoctor,
	"policy":  runPolicy,
	"version": runVersion,
}

// runVersion is `acp-proxy version`, which is `acp-proxy --version`.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Fprintln(stdout, "usage: acp-proxy version (the same as acp-proxy --version): print the version and exit")
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "acp-proxy version: takes no arguments (usage: acp-proxy version)\n")
		return exitUsage
	}
	fmt.Fprintf(stdout, "acp-proxy %s\n", versionString())
	return 0
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "help" {
		return runHelp(args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && subcommands[args[0]] != nil {
		return subcommands[args[0]](args[1:], stdin, stdout, stderr)
	}
	opts, agentArgv, code := parseLive(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	logger, closeLog, err := openLog(opts.logFile, opts.logLevel, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "acp-proxy: %v\n", err)
		return exitUsage
	}
	defer closeLog()

	agent := proxy.Agent{Argv: agentArgv, Stderr: stderr, Grace: opts.grace}
	if onTerminal(stdin) {
		return runByHand(agent, stderr)
	}

	spans := startOtel(&opts, logger, stderr)
	defer spans.close()
	relay := newRelay(opts, logger)
	spans.attach(relay, agentArgv, proxyArgs(args, agentArgv))
	defer statsTo(relay, opts, logger, stderr)()
	start := time.Now()
	if opts.record != "" {
		done, err := recordTo(relay, opts.record, start, connectionInfo(start, args, agentArgv))
		if err != nil {
			fmt.Fprintf(stderr, "acp-proxy: --record: %v\n", err)
			return exitUsage
		}
		defer done()
	}
	stopServe, code := serveLive(relay, opts.serve, start, connectionInfo(start, args, agentArgv), logger, stderr)
	if code >= 0 {
		return code
	}
	defer stopServe()
	status, err := runAgent(relay, agent, stdin, stdout)
	if err != nil {
		var se *proxy.StartError
		if errors.As(err, &se) {
			fmt.Fprintf(stderr, "acp-proxy: %v%s\n", se, installHint(se, agentArgv))
			return se.Code
		}
		fmt.Fprintf(stderr, "acp-proxy: %v\n", err)
		return 1
	}
	logger.Info("agent exited", "status", status, "after", time.Since(start).Round(time.Millisecond))
	return status
}

// newRelay is the live proxy's relay: the filters the flags ask for, each
// failure logged (the message went on unchanged), or none at all.
func newRelay(opts options, logger *slog.Logger) *proxy.Relay {
	opts.filters.Log = logger
	chain := opts.filters.Chain(capabilities.New())
	chain.OnError = func(d acp.Direction, name string, err error) {
		logger.Warn("filter failed; message forwarded unchanged", "filter", name, "dir", d.String(), "err", err)
	}
	relay := &proxy.Relay{Chain: chain, Log: logger, MaxFilterLine: opts.maxFilterLine}
	if chain.Len() == 0 {
		relay.Chain = nil
	}
	return relay
}

// runAgent runs the agent behind relay until it exits, forwarding the
// signals the proxy receives to it.
func runAgent(relay *proxy.Relay, agent proxy.Agent, stdin io.Reader, stdout io.Writer) (int, error) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	return relay.Run(context.Background(), agent, stdin, stdout, sigs)
}

// runHelp is `acp-proxy help [COMMAND]`, which is `acp-proxy [COMMAND]
// --help`, as with go help and gh help.
func runHelp(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		return run([]string{"--help"}, stdin, stdout, stderr)
	case len(args) == 1 && subcommands[args[0]] != nil:
		return subcommands[args[0]]([]string{"--help"}, stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "acp-proxy help: unknown command %q (commands: doctor, policy, replay, version, view; usage: acp-proxy help [COMMAND])\n", strings.Join(args, " "))
	return exitUsage
}

// proxyArgs is the proxy's own arguments: args without the agent's command
// line and the "--" before it.
func proxyArgs(args, agentArgv []string) []string {
	own := args[:len(args)-len(agentArgv)]
	if n := len(own); n > 0 && own[n-1] == "--" {
		own = own[:n-1]
	}
	return own
}

// parseLive parses the live proxy's command line. code ≥ 0 means exit now.
// --help and --version answer on stdout, errors on stderr.
func parseLive(args []string, stdout, stderr io.Writer) (opts options, agent []string, code int) {
	fs := pflag.NewFlagSet("acp-proxy", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SetInterspersed(false)
	pathVarP(fs, &opts.logFile, "log-file", "", "write the proxy's logs (JSON lines) to this file, created readable by you only (it holds --serve's URL); without it only errors go to stderr")
	fs.StringVar(&opts.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	pathVarP(fs, &opts.record, "record", "", "append a JSONL trace of every message to this file, created readable by you only, gzip'd when it ends in .gz (see README: Trace format; it holds your prompts, files and command output)")
	addServeFlag(fs, &opts.serve)
	fs.BoolVar(&opts.stats, "stats", false, "at exit, log messages and bytes per direction, in and out, and per filter")
	fs.BoolVar(&opts.version, "version", false, "print the version and exit")
	durationVar(fs, &opts.grace, "grace", proxy.DefaultGrace, proxy.NoGrace, "after the editor closes stdin: wait this long for the agent, then SIGTERM, then SIGKILL after as long again (0: at once)")
	sizeVar(fs, &opts.maxFilterLine, "max-filter-line", proxy.DefaultMaxFilterLine, "longer lines are streamed through unfiltered")
	addFilterFlags(fs, &opts.filters)
	addOtelFlags(fs, &opts.otel)
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {} // errors get one line, not the whole help

	err := fs.Parse(args)
	if err == nil && !*help && !opts.version {
		err = checkFlagNeeds(fs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "acp-proxy: %v (%s)\n", didYouMean(fs, err), liveSynopsis)
		return opts, nil, exitUsage
	}
	if *help {
		printHelp(stdout, usageText, fs)
		return opts, nil, 0
	}
	if opts.version {
		return opts, nil, runVersion(nil, nil, stdout, stderr)
	}
	dash := fs.ArgsLenAtDash()
	rest := fs.Args()
	if dash != 0 || len(rest) == 0 {
		what := "missing agent command after --"
		if dash < 0 {
			what = "missing -- before the agent command"
		}
		fmt.Fprintf(stderr, "acp-proxy: %s (%s)\n", what, liveSynopsis)
		return opts, nil, exitUsage
	}
	agent, err = expandAgentHome(rest)
	if err != nil {
		fmt.Fprintf(stderr, "acp-proxy: the agent command: %v\n", err)
		return opts, nil, exitUsage
	}
	return opts, agent, -1
}

// expandAgentHome is the agent's command line with each word that is "~" or starts with "~/"
// beginning in the home directory, as a shell would have it: an editor's JSON config has no
// shell to expand it (see expandHome).
func expandAgentHome(argv []string) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		var err error
		if out[i], err = expandHome(a); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// installHint ends the error of an agent that could not be started because its command was
// not found: how to install it, when doctor knows the command ("" otherwise).
func installHint(se *proxy.StartError, agentArgv []string) string {
	if se.Code != 127 || len(agentArgv) == 0 {
		return ""
	}
	if hint := doctor.InstallHint(agentArgv[0]); hint != "" {
		return "; " + hint
	}
	return ""
}

// helpColumns is the width help fits in.
const helpColumns = 100

// printHelp writes a command's help: its text, then its flags wrapped to
// helpColumns.
func printHelp(w io.Writer, text string, fs *pflag.FlagSet) {
	fmt.Fprint(w, text)
	fmt.Fprint(w, fs.FlagUsagesWrapped(helpColumns))
}

// openLog returns the proxy's logger. Logs never go to stdout: that is the
// editor's ACP stream.
func openLog(path, level string, stderr io.Writer) (*slog.Logger, func(), error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("--log-level: %q is not one of debug, info, warn, error", level)
	}
	if path == "" {
		h := slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError, ReplaceAttr: readableDuration})
		return slog.New(h).With("src", "acp-proxy"), func() {}, nil
	}
	// Private: the log holds the live view's URL, and its token is the
	// key to the session.
	f, err := appendPrivate(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-file: %w", err)
	}
	logger := slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: lvl, ReplaceAttr: readableDuration}))
	return logger, func() { f.Close() }, nil
}

// privateMode is the mode of a file the proxy creates that holds what a
// session holds (a trace, a page, a log with the live view's token):
// readable by its owner only. A file that exists keeps its own mode: its
// owner chose it.
const privateMode = 0o600

// appendPrivate opens the file at path for appending, creating it with
// privateMode.
func appendPrivate(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, privateMode)
}

// readableDuration writes a duration as people do ("1.5s"), not as
// nanoseconds.
func readableDuration(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}

// recordTo appends the connection's trace to the file at path (--record),
// gzip'd when the name ends in .gz, with times from start: the recorder
// becomes one of relay's taps, the chain's disk, so that the trace
// holds what the filters read, and a listener of its notes. done flushes and closes the file.
func recordTo(relay *proxy.Relay, path string, start time.Time, info trace.ConnectionInfo) (done func(), err error) {
	f, err := appendPrivate(path) // it holds prompts, files and command output
	if err != nil {
		return nil, err
	}
	rec := trace.RecordFile(f, start, strings.HasSuffix(path, ".gz"))
	_ = rec.Begin(info)
	relay.Taps = append(relay.Taps, rec)
	if relay.Chain != nil {
		relay.Chain.Disk = rec.Disk()
		if relay.Chain.Audits() {
			relay.Chain.ListenNotes(rec.Note) // the decisions (the policy's) are in the trace
		}
	}
	return func() { _ = rec.Close() }, nil
}

// statsTo adds --stats's tap to relay, if asked for; the function it
// returns reports the figures (at exit).
// onTerminal reports whether stdin is a terminal: a person, not an editor.
func onTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && isTerminal(f)
}

// runByHand runs the agent directly. ACP terminal auth reruns the configured
// command in a terminal: the agent talks to the user, not to an editor. Get
// out of the way, but say so: someone trying the proxy by hand would
// otherwise think the filters and --record ran.
func runByHand(agent proxy.Agent, stderr io.Writer) int {
	fmt.Fprintf(stderr, "acp-proxy: stdin is a terminal, not an ACP client: running %s directly, "+
		"without filters, --record or --log-file (an editor starts acp-proxy with pipes)\n", agent.Argv[0])
	return execDirect(agent, stderr)
}

func statsTo(relay *proxy.Relay, opts options, logger *slog.Logger, stderr io.Writer) func() {
	if !opts.stats {
		return func() {}
	}
	sum := trace.NewSummary(relay.Chain)
	relay.Taps = append(relay.Taps, sum)
	return func() { writeStats(sum, opts.logFile != "", logger, stderr) }
}

// connectionInfo describes this proxy run, started at start with args
// (the agent's command line at their end), for the trace's "connection"
// record and the live view.
func connectionInfo(start time.Time, args, agentArgv []string) trace.ConnectionInfo {
	return trace.ConnectionInfo{Started: start.UTC(), Agent: agentArgv, Proxy: versionString(), Args: proxyArgs(args, agentArgv)}
}

// writeStats reports --stats: into the log when there is a log file,
// otherwise as a table on stderr (never stdout: that is the editor's).
func writeStats(sum *trace.Summary, toLog bool, logger *slog.Logger, stderr io.Writer) {
	report := sum.Report()
	if toLog {
		logger.Info("stats", "directions", report.Directions, "filters", report.Filters, "toolCalls", report.ToolCalls)
		return
	}
	fmt.Fprintln(stderr, "acp-proxy stats:")
	_ = report.WriteText(stderr)
}
