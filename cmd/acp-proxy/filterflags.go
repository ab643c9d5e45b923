package main

import (
	"fmt"

	"github.com/acp-proxy/acp-proxy/filters/output"
	"github.com/acp-proxy/acp-proxy/filters/shellpatch"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/spf13/pflag"
)

// addFilterFlags registers the flags that enable and tune filters; the live
// proxy and replay share them, so a replay shows what the live proxy does.
func addFilterFlags(fs *pflag.FlagSet, cfg *filterset.Config) {
	addPolicyFlag(fs, cfg)
	fs.BoolVar(&cfg.ShellToPatch, "shell-to-patch", false,
		"every file a shell command provably writes is shown as a diff beside the command (cat <<'EOF' > f, echo … >> f, sed -i, several in one script), or as an edit when writing is all it does")
	sizeVar(fs, &cfg.MaxPatchBytes, "max-patch-bytes", shellpatch.DefaultMaxPatchBytes,
		"with --shell-to-patch: what it holds for the edits of all calls in progress together (old and new text); a write that does not fit is not rewritten, one that fits beside the others evicts the oldest")
	fs.BoolVar(&cfg.PatchOutsideCwd, "patch-outside-cwd", false,
		"let --shell-to-patch rewrite writes outside the session's directory")
	fs.BoolVar(&cfg.TerminalOutput, "terminal-output", false,
		"ask the agent to stream command output (_meta.terminal_output) and show it live, coalesced, to clients that don't render it; also cleans up <persisted-output> previews")
	fs.BoolVar(&cfg.Deltas, "deltas", false,
		"turn accumulated output snapshots (codex-acp ≤0.13, opencode) into terminal_output deltas for clients that render them, and coalesce them for others; show terminal output an agent sends unasked (codex-acp 2.x) as the client reads it")
	durationVar(fs, &cfg.CoalesceInterval, "coalesce-interval", output.DefaultCoalesceInterval, output.NoCoalescing,
		"with --terminal-output or --deltas: at most one output update per tool call per interval for clients that get whole snapshots (0: each as it comes, within the byte budget)")
	sizeVar(fs, &cfg.LiveTailBytes, "live-tail-bytes", output.DefaultLiveTailBytes,
		"with --terminal-output or --deltas: while a command runs, show clients that don't render the extension at most this much of its output per update: the last lines, marked as a tail (the whole output comes at the end)")
	fs.BoolVar(&cfg.ExpandPersistedOutput, "expand-persisted-output", false,
		"show the whole output an agent saved to a file in place of the part it shows (claude-agent-acp's <persisted-output> preview or clipped output, opencode's truncated output)")
	fs.BoolVar(&cfg.ShowChanges, "show-changes", false,
		"after each command an agent runs, add a diff of every file under the session's directory that changed while it ran (created, modified, deleted, moved; .gitignore'd files, .git and dependency/build folders never)")
	sizeVar(fs, &cfg.MaxOutputBytes, "max-output-bytes", output.DefaultMaxCallOutputBytes,
		"with --terminal-output or --expand-persisted-output: most output kept per tool call for a client without the extension (the rest is noted, and shown from rawOutput at the end), and largest saved file --expand-persisted-output shows")
}

// flagNeeds names the flags that mean something only beside another: each
// is a usage error without one of those it names.
var flagNeeds = map[string][]string{
	"max-patch-bytes":   {"shell-to-patch"},
	"patch-outside-cwd": {"shell-to-patch"},
	"coalesce-interval": {"terminal-output", "deltas"},
	"live-tail-bytes":   {"terminal-output", "deltas"},
	"max-output-bytes":  {"terminal-output", "expand-persisted-output"},
	"log-level":         {"log-file"},
	"json":              {"summary"},
}

// checkFlagNeeds reports the first flag of fs given without a flag it
// needs (see flagNeeds).
func checkFlagNeeds(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		needs, ok := flagNeeds[f.Name]
		if err != nil || !ok || !given(f) {
			return
		}
		for _, n := range needs {
			if g := fs.Lookup(n); g != nil && given(g) {
				return
			}
		}
		err = fmt.Errorf("--%s means nothing without --%s", f.Name, joinOr(needs))
	})
	return err
}

// given reports whether f was set to something other than off or empty.
func given(f *pflag.Flag) bool {
	return f.Changed && f.Value.String() != "false" && f.Value.String() != ""
}

// joinOr is names as "a", "a or --b".
func joinOr(names []string) string {
	s := names[0]
	for _, n := range names[1:] {
		s += " or --" + n
	}
	return s
}
