package main

import (
	"github.com/acp-proxy/acp-proxy/filters/output"
	"github.com/acp-proxy/acp-proxy/filters/shellpatch"
	"github.com/spf13/pflag"
)

// addFilterFlags registers the flags that enable and tune filters; the live
// proxy and replay share them, so a replay shows what the live proxy does.
func addFilterFlags(fs *pflag.FlagSet, cfg *filterConfig) {
	fs.BoolVar(&cfg.ShellToPatch, "shell-to-patch", false,
		"show shell commands that provably write one file (cat <<'EOF' > f, printf … > f, echo … > f) as edit calls with a diff")
	fs.Int64Var(&cfg.MaxPatchBytes, "max-patch-bytes", shellpatch.DefaultMaxPatchBytes,
		"bytes --shell-to-patch holds for the edits of all calls in progress together (old and new text); a write that does not fit is not rewritten, one that fits beside the others evicts the oldest")
	fs.BoolVar(&cfg.PatchOutsideCwd, "patch-outside-cwd", false,
		"let --shell-to-patch rewrite writes outside the session's directory")
	fs.BoolVar(&cfg.TerminalOutput, "terminal-output", false,
		"ask the agent to stream command output (_meta.terminal_output) and show it live, coalesced, to clients that don't render it; also cleans up <persisted-output> previews")
	fs.BoolVar(&cfg.Deltas, "deltas", false,
		"turn accumulated output snapshots (codex-acp ≤0.13) into terminal_output deltas for clients that render them, and coalesce them for others")
	fs.DurationVar(&cfg.CoalesceInterval, "coalesce-interval", output.DefaultCoalesceInterval,
		"at most one output update per tool call per interval for clients that get whole snapshots")
	fs.IntVar(&cfg.LiveTailBytes, "live-tail-bytes", output.DefaultLiveTailBytes,
		"while a command runs, show clients that don't render the extension at most this much of its output per update: the last lines, marked as a tail (the whole output comes at the end)")
	fs.BoolVar(&cfg.ExpandPersistedOutput, "expand-persisted-output", false,
		"show the whole output an agent saved to a file in place of the part it shows (claude-agent-acp's <persisted-output> preview or clipped output, opencode's truncated output)")
	fs.Int64Var(&cfg.MaxOutputBytes, "max-output-bytes", output.DefaultMaxCallOutputBytes,
		"most output kept per tool call for a client without the extension (the rest is noted, and shown from rawOutput at the end), and largest saved file --expand-persisted-output shows (bytes)")
}
