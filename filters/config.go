package filters

import (
	"time"

	"github.com/acp-proxy/acp-proxy/capabilities"
)

// Config says which filters run and how. The zero value enables none: a
// byte-exact relay.
type Config struct {
	// Filters are added to the chain in this order, whatever order the
	// flags were given in (the canonical order, documented in README.md).

	// ShellToPatch shows shell commands that provably write one file as
	// edit calls with a diff (see ShellPatch).
	ShellToPatch bool
	// MaxPatchBytes bounds the existing file read as a diff's oldText;
	// zero means DefaultMaxPatchBytes.
	MaxPatchBytes int64
	// PatchOutsideCwd also rewrites writes outside the session's directory.
	PatchOutsideCwd bool

	// Deltas turns accumulated output snapshots into deltas (see Deltas).
	Deltas bool
	// TerminalOutput asks agents for the terminal-output extension and
	// translates it for clients without it (see TerminalOutput). It also
	// turns on the persisted-output clean-up.
	TerminalOutput bool
	// ExpandPersistedOutput shows the file the Claude CLI saved instead of
	// its preview (see PersistedOutput).
	ExpandPersistedOutput bool

	// CoalesceInterval bounds how often the output of one tool call is
	// re-sent to a client without the extension; zero means
	// DefaultCoalesceInterval.
	CoalesceInterval time.Duration
	// MaxOutputBytes bounds a saved output file shown in full; zero means
	// DefaultMaxOutputBytes.
	MaxOutputBytes int64
}

// DefaultCoalesceInterval bounds how long coalesced output waits.
const DefaultCoalesceInterval = 100 * time.Millisecond

// Chain builds the chain cfg asks for, reading and recording negotiated
// state in caps.
func (cfg Config) Chain(caps *capabilities.Negotiated) *Chain {
	var fs []Filter
	// shell-to-patch runs first: a call it shows as an edit loses its
	// terminal, so the output filters leave it alone.
	if cfg.ShellToPatch {
		fs = append(fs, &ShellPatch{MaxBytes: cfg.MaxPatchBytes, OutsideCwd: cfg.PatchOutsideCwd})
	}
	// deltas runs before terminal-output, so that for a client with the
	// extension terminal-output sees the deltas deltas made (and completes
	// them from rawOutput), and persisted-output last, so it cleans the
	// text the other two produced.
	if cfg.Deltas {
		fs = append(fs, &Deltas{Interval: cfg.CoalesceInterval})
	}
	if cfg.TerminalOutput {
		fs = append(fs, &TerminalOutput{Interval: cfg.CoalesceInterval, MaxBytes: cfg.MaxOutputBytes})
	}
	if cfg.TerminalOutput || cfg.ExpandPersistedOutput {
		fs = append(fs, &PersistedOutput{
			Expand:     cfg.ExpandPersistedOutput,
			MaxBytes:   cfg.MaxOutputBytes,
			ConfigDirs: ClaudeConfigDirs(),
		})
	}
	return NewChain(caps, fs...)
}
