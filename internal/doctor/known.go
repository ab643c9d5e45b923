package doctor

import (
	"strconv"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
)

// What each filter does for the agents the proxy is proven against (the
// README's "Supported agents" table), for each kind of client.

// The filter flags, in the order the proxy runs them (the filter set's).
const (
	ShellToPatch          = filterset.ShellToPatch
	Deltas                = filterset.Deltas
	TerminalOutput        = filterset.TerminalOutput
	ExpandPersistedOutput = filterset.ExpandPersistedOutput
)

// Verdict is whether a filter helps, and why in a few words.
type Verdict struct {
	Helps bool
	Why   string
}

// Advice is what a filter does for one agent, for a client that renders
// the terminal-output extension (Zed-like) and for one that does not
// (plain).
type Advice struct {
	ZedLike, Plain Verdict
}

// Agent is what doctor knows about an agent.
type Agent struct {
	// Known is false for an agent the proxy is not proven against: its
	// advice is the general one.
	Known bool
	// Name names the release line, e.g. "codex-acp ≥ 0.14".
	Name string
	// Filters is the advice per filter flag.
	Filters map[string]Advice
	// Notes are what a user of this agent should know besides the flags.
	Notes []string
	// AgentShellVar is agent-shell's variable for the agent's command,
	// CodecompanionAdapter codecompanion's adapter ("" when it has none).
	AgentShellVar, CodecompanionAdapter string
}

func both(helps bool, why string) Advice {
	return Advice{Verdict{helps, why}, Verdict{helps, why}}
}

// helpsEach is a filter that helps both kinds of client, each in its own way.
func helpsEach(zedLikeWhy, plainWhy string) Advice {
	return Advice{Verdict{true, zedLikeWhy}, Verdict{true, plainWhy}}
}

var (
	shellToPatchBash   = both(true, "its shell commands that provably write one file (cat <<'EOF' > f, printf … > f) show as edits with a diff")
	shellToPatchClaude = both(true, "its Bash tool's writes (cat <<'EOF' > f, …) show as edits with a diff; it refuses what Claude Code's own quoting would change")
	noSnapshots        = both(false, "it sends no accumulated output snapshots")
	noSavedOutput      = both(false, "it saves no outputs to files")
)

// identify recognises an agent by its agentInfo and protocol version.
func identify(a *Answer) Agent {
	name, version := a.Info.Name, a.Info.Version
	switch {
	case a.ProtocolVersion >= 2:
		return protocolV2(a.ProtocolVersion)
	case name == "codex-acp" && versionBelow(version, 0, 14):
		return codexSnapshots()
	case name == "codex-acp":
		return codex()
	case name == "@zed-industries/claude-agent-acp":
		return claudeZed()
	case name == "@agentclientprotocol/claude-agent-acp":
		return claudeACP()
	case name == "gemini-cli":
		return gemini()
	case strings.EqualFold(name, "opencode"):
		return opencode()
	}
	return unknown()
}

func codexSnapshots() Agent {
	return releaseLine(codex(), "codex-acp ≤ 0.13 (@zed-industries/codex-acp)", map[string]Advice{
		Deltas: helpsEach(
			"its updates re-send the whole output so far; they become deltas",
			"its updates re-send the whole output so far; they are coalesced, with a live tail",
		),
	})
}

// releaseLine is another release line of base's agent: named name, with the
// advice of the filters in changed replaced.
func releaseLine(base Agent, name string, changed map[string]Advice) Agent {
	base.Name = name
	for flag, advice := range changed {
		base.Filters[flag] = advice
	}
	return base
}

func codex() Agent {
	return Agent{
		Known: true, Name: "codex-acp ≥ 0.14 (@zed-industries/codex-acp)",
		Filters: map[string]Advice{
			ShellToPatch: shellToPatchBash,
			Deltas:       both(false, "0.14 and later send no output snapshots"),
			TerminalOutput: helpsEach(
				"recovers the output it stops streaming after 10,000 updates",
				"without it a plain client sees no command output until the command ends; with it, live output as text",
			),
			ExpandPersistedOutput: noSavedOutput,
		},
		AgentShellVar: "agent-shell-openai-codex-acp-command", CodecompanionAdapter: "codex",
	}
}

func claudeZed() Agent {
	return Agent{
		Known: true, Name: "claude-agent-acp 0.23 (@zed-industries/claude-agent-acp)",
		Filters: map[string]Advice{
			ShellToPatch: shellToPatchClaude,
			Deltas:       noSnapshots,
			TerminalOutput: helpsEach(
				"its raw <persisted-output> previews of large outputs are cleaned up",
				"its terminal output is shown as text, live; <persisted-output> previews are cleaned up",
			),
			ExpandPersistedOutput: both(true, "shows the whole output it saved to a file in place of its <persisted-output> preview"),
		},
		AgentShellVar: "agent-shell-anthropic-claude-acp-command", CodecompanionAdapter: "claude_code",
	}
}

func claudeACP() Agent {
	a := releaseLine(claudeZed(), "claude-agent-acp ≥ 0.100 (@agentclientprotocol/claude-agent-acp)", map[string]Advice{
		TerminalOutput: helpsEach(
			"its terminal_output_delta stream is given in the form the client asked for",
			"its terminal output is shown as text, live",
		),
		ExpandPersistedOutput: both(true, "shows the whole saved output in place of the first ~30 KB and its [Output truncated …] note"),
	})
	a.Notes = []string{`Its default permission mode, auto, asks the model to classify each command first; ` +
		`"permissions": {"defaultMode": "default"} in its settings.json asks you instead.`}
	return a
}

func gemini() Agent {
	return Agent{
		Known: true, Name: "gemini-cli (gemini --acp)",
		Filters: map[string]Advice{
			ShellToPatch:          both(false, "it sends the command only in the title (a rawInput {command} is recognised when present)"),
			Deltas:                noSnapshots,
			TerminalOutput:        both(false, "it sends no live output and no terminal _meta: nothing to do"),
			ExpandPersistedOutput: noSavedOutput,
		},
		Notes: []string{`On its default shell (a PTY) it shows no command output at all; ` +
			`"tools": {"shell": {"enableInteractiveShell": false}} in ~/.gemini/settings.json shows it at the end.`},
		AgentShellVar: "agent-shell-google-gemini-acp-command", CodecompanionAdapter: "gemini_cli",
	}
}

func opencode() Agent {
	return Agent{
		Known: true, Name: "opencode (opencode acp)",
		Filters: map[string]Advice{
			ShellToPatch: both(true, `only when its $SHELL is a POSIX shell and it asks before bash ("permission": {"bash": "ask"} in opencode.json)`),
			Deltas: helpsEach(
				"its updates re-send the whole output so far; they become deltas",
				"its updates re-send the whole output so far; they are coalesced",
			),
			TerminalOutput:        both(false, "it sends no terminal _meta: nothing to do"),
			ExpandPersistedOutput: both(true, "its ...output truncated... final output shows every line"),
		},
		AgentShellVar: "agent-shell-opencode-acp-command", CodecompanionAdapter: "opencode",
	}
}

func protocolV2(v int) Agent {
	why := "it speaks ACP v" + strconv.Itoa(v) + ": the filters stand aside"
	return Agent{
		Known: true, Name: "an ACP v" + strconv.Itoa(v) + " agent",
		Filters: map[string]Advice{
			ShellToPatch: both(false, why), Deltas: both(false, why),
			TerminalOutput: both(false, why), ExpandPersistedOutput: both(false, why),
		},
	}
}

func unknown() Agent {
	return Agent{
		Name: "not one the proxy is proven against: this is the general advice",
		Filters: map[string]Advice{
			ShellToPatch: both(true, "if it reports shell commands in rawInput.command, its provable writes show as edits"),
			Deltas: {
				ZedLike: Verdict{false, "only for an agent that re-sends the whole output so far"},
				Plain:   Verdict{true, "if it re-sends the whole output so far, the updates are coalesced"},
			},
			TerminalOutput: helpsEach(
				"if it streams terminal output, recovers what it drops",
				"if it streams terminal output when asked, shows it live as text",
			),
			ExpandPersistedOutput: both(false, "only claude-agent-acp's and opencode's saved outputs are known"),
		},
		Notes: []string{"A filter stands aside on a message it does not know, so these flags are safe to try; " +
			"acp-proxy --record FILE, then acp-proxy replay --summary with the flags, shows what each changed."},
	}
}

// versionBelow reports whether version (major.minor[.patch…]) is below
// major.minor; a version it cannot read is not.
func versionBelow(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma < major || (ma == major && mi < minor)
}
