// Package filterset builds the chain of filters the command line asks for,
// in the one order they run: the live proxy, replay, view and the tests that
// mean "the proxy's chain" all build it here.
package filterset

import (
	"log/slog"
	"time"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/filters/changes"
	"github.com/acp-proxy/acp-proxy/filters/output"
	"github.com/acp-proxy/acp-proxy/filters/policy"
	"github.com/acp-proxy/acp-proxy/filters/shellpatch"
)

// Config says which filters run and how, as the filter flags set it. The
// zero value enables none: a byte-exact relay.
type Config struct {
	// Filters are added to the chain in this order, whatever order the
	// flags were given in (the canonical order, documented in README.md).

	// Policy decides each tool call and client request by its rules (see
	// policy.Filter); nil: no policy. It runs first, on the messages as the
	// agent sent them.
	Policy *policy.Policy

	// ShellToPatch shows every file a shell command provably writes as a
	// diff, or the command as an edit when writing is all it does (see
	// shellpatch.Filter).
	ShellToPatch bool
	// MaxPatchBytes bounds the bytes shell-to-patch holds for the edits of
	// all live calls together; zero means shellpatch.DefaultMaxPatchBytes.
	MaxPatchBytes int64
	// PatchOutsideCwd also rewrites writes outside the session's directory.
	PatchOutsideCwd bool

	// Deltas turns accumulated output snapshots into deltas (see
	// output.Deltas).
	Deltas bool
	// TerminalOutput asks agents for the terminal-output extension and
	// translates it for clients without it (see output.TerminalOutput). It
	// also turns on the persisted-output clean-up.
	TerminalOutput bool
	// ExpandPersistedOutput shows the file the Claude CLI saved instead of
	// its preview (see output.PersistedOutput).
	ExpandPersistedOutput bool

	// ShowChanges sends, after each command an agent runs, a diff of every
	// file under the session's directory that changed while it ran (see
	// changes.Filter).
	ShowChanges bool

	// CoalesceInterval bounds how often the output of one tool call is
	// re-sent to a client without the extension; zero means
	// output.DefaultCoalesceInterval.
	CoalesceInterval time.Duration
	// MaxOutputBytes bounds the output of one tool call the proxy holds:
	// kept for translation and recovery, or read from a saved file shown
	// in full; zero means output.DefaultMaxCallOutputBytes.
	MaxOutputBytes int64
	// LiveTailBytes bounds the output per update a client without the
	// extension is sent while a command runs; zero means
	// output.DefaultLiveTailBytes.
	LiveTailBytes int

	// Replaying: the chain runs over a trace (replay, view); the commands
	// it shows did not run here, so shell-to-patch does not check shown
	// edits against the files.
	Replaying bool
	// Log takes the filters' warnings (shell-to-patch's edits taken back);
	// nil: none.
	Log *slog.Logger
	// Last are filters that run after the flags' own, in order: the
	// OpenTelemetry trace-context filter, which passes on what the client
	// sent with the proxy's span in it.
	Last []filters.Filter
}

// Chain builds the chain cfg asks for, reading and recording negotiated
// state in caps.
func (cfg Config) Chain(caps *capabilities.Negotiated) *filters.Chain {
	return filters.NewChain(caps, cfg.Filters()...)
}

// Filters are the filters cfg turns on, in the order they run.
func (cfg Config) Filters() []filters.Filter {
	var fs []filters.Filter
	if cfg.Policy != nil {
		fs = append(fs, &policy.Filter{Policy: cfg.Policy, Log: cfg.Log})
	}
	// shell-to-patch runs first of the filters that show: a call it shows as an edit loses its
	// terminal, so the output filters leave it alone.
	if cfg.ShellToPatch {
		fs = append(fs, &shellpatch.Filter{MaxBytes: cfg.MaxPatchBytes, OutsideCwd: cfg.PatchOutsideCwd,
			Unverified: cfg.Replaying, Log: cfg.Log})
	}
	// deltas runs before terminal-output, so that for a client with the
	// extension terminal-output sees the deltas deltas made (and completes
	// them from rawOutput), and persisted-output last, so it cleans the
	// text the other two produced.
	if cfg.Deltas {
		fs = append(fs, &output.Deltas{Interval: cfg.CoalesceInterval, LiveTailBytes: cfg.LiveTailBytes})
	}
	if cfg.TerminalOutput || cfg.Deltas {
		// --deltas alone asks the agent for nothing, but an agent may stream
		// terminal output no one asked for (codex-acp 2.x does, to every
		// client): --deltas shows it as the client can.
		fs = append(fs, &output.TerminalOutput{Interval: cfg.CoalesceInterval, MaxBytes: cfg.MaxOutputBytes, LiveTailBytes: cfg.LiveTailBytes,
			OnlyUnasked: !cfg.TerminalOutput})
	}
	if cfg.TerminalOutput || cfg.ExpandPersistedOutput {
		fs = append(fs, &output.PersistedOutput{
			Expand:           cfg.ExpandPersistedOutput,
			MaxBytes:         cfg.MaxOutputBytes,
			ConfigDirs:       output.ClaudeConfigDirs(),
			OpencodeDataDirs: output.OpencodeDataDirs(),
		})
	}
	// show-changes runs last of the flags' filters: it re-sends the call's content as the client
	// holds it, and takes the diffs the filters before it showed as shown.
	if cfg.ShowChanges {
		fs = append(fs, &changes.Filter{Replaying: cfg.Replaying, Log: cfg.Log})
	}
	return append(fs, cfg.Last...)
}

// The filter flags, as a user types them.
const (
	ShellToPatch          = "--shell-to-patch"
	Deltas                = "--deltas"
	TerminalOutput        = "--terminal-output"
	ExpandPersistedOutput = "--expand-persisted-output"
	ShowChanges           = "--show-changes"
)

// Filters are the filter flags in the order the filters run.
var Filters = []string{ShellToPatch, Deltas, TerminalOutput, ExpandPersistedOutput, ShowChanges}

// Flags are the filter flags cfg turns on, as flags, in the order the
// filters run.
func (cfg Config) Flags() []string {
	var flags []string
	for _, f := range []struct {
		on   bool
		flag string
	}{
		{cfg.ShellToPatch, ShellToPatch},
		{cfg.Deltas, Deltas},
		{cfg.TerminalOutput, TerminalOutput},
		{cfg.ExpandPersistedOutput, ExpandPersistedOutput},
		{cfg.ShowChanges, ShowChanges},
	} {
		if f.on {
			flags = append(flags, f.flag)
		}
	}
	return flags
}
