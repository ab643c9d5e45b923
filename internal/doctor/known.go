package doctor

import (
	"cmp"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/registry"
)

// What each filter does for the agents the proxy is proven against (the
// README's "Supported agents" table), for each kind of client.

// The filter flags, in the order the proxy runs them (the filter set's).
const (
	ShellToPatch          = filterset.ShellToPatch
	Deltas                = filterset.Deltas
	TerminalOutput        = filterset.TerminalOutput
	ExpandPersistedOutput = filterset.ExpandPersistedOutput
	ShowChanges           = filterset.ShowChanges
)

// showChangesProven is --show-changes for an agent whose shell calls the
// real-agent tests run behind it (TestShowChangesRealAgents: codex-acp
// 0.13, 0.16 and 2.6, claude-agent-acp 0.23 and 0.101, gemini-cli, opencode,
// kilo, qwen-code, cline, pi-acp).
var showChangesProven = both(true, "after each of its commands, every file under the project that changed shows as a diff "+
	"(a program's write, cp, mv, rm, patch: what no reading of the command shows); opt-in, not in the configs below")

// showChangesUnproven is --show-changes for an agent the tests do not run behind it.
var showChangesUnproven = both(true, "after each call of kind execute, every file under the project that changed shows as a diff "+
	"(not run with this agent in the project's tests); opt-in, not in the configs below")

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
	// Name names the release line, e.g. "codex-acp 0.14–0.16".
	Name string
	// Proven says whether the proxy is proven against this release, and
	// why in a few words.
	Proven string
	// Package is its npm package ("" when not known), Registry the ACP
	// registry's entry for it (nil when the registry has none).
	Package  string
	Registry *registry.Entry
	// Filters is the advice per filter flag.
	Filters map[string]Advice
	// Notes are what a user of this agent should know besides the flags.
	Notes []string
	// AgentShellVar is agent-shell's variable for the agent's command,
	// CodecompanionAdapter codecompanion's adapter ("" when it has none).
	AgentShellVar, CodecompanionAdapter string
	// AuthKeys are the environment variables each of its API-key sign-in
	// methods reads, by method id, where its answer does not name them
	// (measured: authenticate answers when one is set, fails when none
	// is). SignInNotes say what its other methods do, by method id.
	AuthKeys    map[string][]string
	SignInNotes map[string]string
	// Logins are the files where the agent keeps a login it signed in to
	// its own way, by method id: "$VAR/file" where VAR names its
	// directory, else "~/…"; LoginCommand is what stores one. SignInHow
	// says how a user signs it in outside an editor.
	Logins                  map[string][]string
	LoginCommand, SignInHow string
	// Policy is what --policy can stop before it runs with it, per mode
	// (nil: not measured).
	Policy *PolicyReach
}

func both(helps bool, why string) Advice {
	return Advice{Verdict{helps, why}, Verdict{helps, why}}
}

// helpsEach is a filter that helps both kinds of client, each in its own way.
func helpsEach(zedLikeWhy, plainWhy string) Advice {
	return Advice{Verdict{true, zedLikeWhy}, Verdict{true, plainWhy}}
}

var (
	shellToPatchBash   = both(true, "every file its shell commands provably write (cat <<'EOF' > f, echo … >> f, sed -i, several in one script) shows as a diff, or as an edit when writing is all the command does")
	shellToPatchClaude = both(true, "every file its Bash tool's commands provably write (cat <<'EOF' > f, echo … >> f, sed -i, …) shows as a diff, or as an edit when writing is all the command does; it refuses what Claude Code's own quoting would change")
	noSnapshots        = both(false, "it sends no accumulated output snapshots")
	noSavedOutput      = both(false, "it saves no outputs to files")
)

// release is a release line the proxy is proven against: the project's
// real-agent tests (internal/realagent, pinned in testdata/agents) run it.
type release struct {
	// pkg is its npm package; infoNames the agentInfo.name it answers
	// initialize with (matched ignoring case).
	pkg       string
	infoNames []string
	// from and to are the major.minor versions the advice holds for;
	// tested are the releases the tests run.
	from, to, tested string
	// sameAs is the registry id that installs the same agent another way
	// (opencode-ai is the registry's opencode binary), when pkg is not the
	// registry's.
	sameAs string
	advice func() Agent
}

// proven are the release lines the proxy is proven against. A release
// joins only with a pinned directory in testdata/agents that the
// real-agent tests run.
var proven = []release{
	{"@zed-industries/codex-acp", []string{"codex-acp"}, "0.13", "0.13", "0.13.0", "", codexSnapshots},
	{"@zed-industries/codex-acp", []string{"codex-acp"}, "0.14", "0.16", "0.16.0", "", codex},
	{"@agentclientprotocol/codex-acp", []string{"@agentclientprotocol/codex-acp"}, "2.6", "2.6", "2.6.0", "", codexAppServer},
	{"@zed-industries/claude-agent-acp", []string{"@zed-industries/claude-agent-acp"}, "0.23", "0.23", "0.23.1", "", claudeZed},
	{"@agentclientprotocol/claude-agent-acp", []string{"@agentclientprotocol/claude-agent-acp"}, "0.100", "0.101", "0.101.0", "", claudeACP},
	{"@google/gemini-cli", []string{"gemini-cli"}, "0.61", "0.61", "0.61.0", "", gemini},
	{"opencode-ai", []string{"opencode"}, "1.18", "1.18", "1.18.33", "opencode", opencode},
	{"@kilocode/cli", []string{"Kilo"}, "7.7", "7.7", "7.7.7", "", kilo},
	{"@qwen-code/qwen-code", []string{"qwen-code"}, "0.24", "0.24", "0.24.4", "", qwen},
	{"cline", []string{"cline"}, "3.0", "3.0", "3.0.65", "", cline},
	{"pi-acp", []string{"pi-acp"}, "0.0", "0.0", "0.0.34", "", piACP},
}

// identify recognises an agent: its package from its command line (an npx
// package spec, or a path into node_modules), else from its agentInfo.name;
// the registry's entry for it; and, by its version, whether the proxy is
// proven against it.
func identify(a *Answer, argv []string) Agent {
	pkg := commandPackage(append(append([]string{}, argv...), a.Path, a.RealPath))
	if pkg == "" {
		pkg = infoPackage(a.Info.Name)
	}
	entry := registryEntry(pkg, argv, a.Info.Name)
	var agent Agent
	line, lines := provenLine(pkg, a.Info.Version)
	switch {
	case line != nil:
		agent = line.advice()
		agent.Proven = "yes: the project's real-agent tests run " + pkg + " " + line.tested
	case len(lines) > 0:
		agent = unknown()
		agent.Name = pkg + " " + a.Info.Version + ": outside the releases the proxy is proven against; this is the general advice"
		agent.Proven = "no: " + cmp.Or(a.Info.Version, "its version (none given)") + " is outside the proven " + rangesOf(lines)
	default:
		agent = unknown()
		agent.Proven = "no: the project's real-agent tests do not run it; this is the general advice"
	}
	if a.ProtocolVersion >= 2 {
		v2 := protocolV2(a.ProtocolVersion)
		agent.Known, agent.Name, agent.Filters = v2.Known, v2.Name, v2.Filters
	}
	agent.Package, agent.Registry = pkg, entry
	return agent
}

// commandPackage is the npm package args name, the first that is a known
// package (a proven release's or the registry's): as a package spec
// ("@agentclientprotocol/codex-acp@2.6.0", what npx is given) or as a path
// into node_modules.
func commandPackage(args []string) string {
	for _, arg := range args {
		candidate := registry.PackageName(arg)
		if p := filepath.ToSlash(arg); strings.Contains(p, "node_modules/") {
			candidate = modulePackage(p)
		}
		if candidate == "" {
			continue
		}
		if _, ok := registry.Snapshot().ByPackage(candidate); ok {
			return candidate
		}
		for _, r := range proven {
			if r.pkg == candidate {
				return candidate
			}
		}
	}
	return ""
}

// modulePackage is the package of a path inside node_modules, the last
// one: ".../node_modules/@scope/name/dist/index.js" → "@scope/name".
func modulePackage(p string) string {
	rest := p[strings.LastIndex(p, "node_modules/")+len("node_modules/"):]
	parts := strings.SplitN(rest, "/", 3)
	if strings.HasPrefix(parts[0], "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// infoPackage is the package of a proven release that answers with
// agentInfo.name name, or name itself when it is a registry agent's
// package ("" when neither).
func infoPackage(name string) string {
	for _, r := range proven {
		for _, n := range r.infoNames {
			if strings.EqualFold(n, name) {
				return r.pkg
			}
		}
	}
	if _, ok := registry.Snapshot().ByPackage(name); ok {
		return name
	}
	return ""
}

// registryEntry is the registry's entry for the agent of package pkg
// (nil when it has none): by package; for a package the registry does not
// install, only the entry a proven release names; for an agent of no known
// package, by its executable's name or its agentInfo.name (binary agents).
func registryEntry(pkg string, argv []string, infoName string) *registry.Entry {
	reg := registry.Snapshot()
	if e, ok := reg.ByPackage(pkg); ok {
		return &e
	}
	if pkg != "" {
		for _, r := range proven {
			if e, ok := reg.ByID(r.sameAs); ok && r.pkg == pkg {
				return &e
			}
		}
		return nil // another agent than the registry's of the same name
	}
	if len(argv) > 0 {
		if e, ok := reg.ByCommand(strings.TrimSuffix(filepath.Base(argv[0]), ".exe")); ok {
			return &e
		}
	}
	if e, ok := reg.ByName(infoName); ok {
		return &e
	}
	return nil
}

// provenLine is the proven release line of pkg that version falls in (nil
// when none), and all of pkg's proven lines.
func provenLine(pkg, version string) (line *release, lines []release) {
	for i, r := range proven {
		if r.pkg != pkg {
			continue
		}
		lines = append(lines, r)
		if !versionBelow(version, r.from) && versionBelow(version, nextMinor(r.to)) {
			line = &proven[i]
		}
	}
	return line, lines
}

// rangesOf says which versions lines cover: "0.13, 0.14–0.16".
func rangesOf(lines []release) string {
	var ranges []string
	for _, r := range lines {
		if r.from == r.to {
			ranges = append(ranges, r.from)
		} else {
			ranges = append(ranges, r.from+"–"+r.to)
		}
	}
	return "releases of " + lines[0].pkg + " (" + strings.Join(ranges, ", ") + ")"
}

func codexSnapshots() Agent {
	return releaseLine(codex(), "codex-acp 0.13 (@zed-industries/codex-acp)", map[string]Advice{
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
		Known: true, Name: "codex-acp 0.14–0.16 (@zed-industries/codex-acp)",
		Filters: map[string]Advice{
			ShellToPatch: shellToPatchBash,
			Deltas:       both(false, "0.14 and later send no output snapshots"),
			TerminalOutput: helpsEach(
				"recovers the output it stops streaming after 10,000 updates",
				"without it a plain client sees no command output until the command ends; with it, live output as text",
			),
			ExpandPersistedOutput: noSavedOutput,
			ShowChanges:           showChangesProven,
		},
		Notes: []string{"This is the Rust adapter, which the ACP registry does not list: " +
			"the registry's Codex (id codex-acp) is another one, @agentclientprotocol/codex-acp 2.x."},
		AgentShellVar: "agent-shell-openai-codex-acp-command", CodecompanionAdapter: "codex",
		SignInNotes: map[string]string{"chatgpt": chatGPTNote},
		Logins:      map[string][]string{"chatgpt": codexLogin},
		SignInHow:   codexSignInHow, LoginCommand: codexLoginCommand,
		Policy: codexPolicy,
	}
}

// codexLogin is where codex keeps the ChatGPT login both codex-acp lines
// use: CODEX_HOME, else ~/.codex.
var codexLogin = []string{"$CODEX_HOME/auth.json", "~/.codex/auth.json"}

// codexLoginCommand stores the ChatGPT login; codexSignInHow is how a
// codex user signs in outside the editor.
const (
	codexLoginCommand = "`codex login` (the Codex CLI, @openai/codex), run in a terminal,"
	codexSignInHow    = "set CODEX_API_KEY or OPENAI_API_KEY where the editor sees it, or run `codex login` " +
		"(the Codex CLI, @openai/codex) in a terminal to store a ChatGPT login"
)

// chatGPTNote is what codex-acp's ChatGPT sign-in does (measured with
// 0.16.0 and 2.6.0 offline).
const chatGPTNote = "codex-acp answers authenticate with it once a ChatGPT login is stored; " +
	"without one it did not answer within 20 s, codecompanion's default timeout"

// codexAppServer is @agentclientprotocol/codex-acp 2.x, the registry's
// Codex: a TypeScript adapter on codex app-server, not a later release of
// the Rust one. Measured against the real 2.6.0.
func codexAppServer() Agent {
	return Agent{
		Known: true, Name: "codex-acp 2.6 (@agentclientprotocol/codex-acp, the registry's Codex)",
		Filters: map[string]Advice{
			ShellToPatch: both(true, "every file its shell commands provably write (heredoc, echo/printf > f, sed -i) shows "+
				"as a diff, in the call and in its permission request"),
			Deltas: both(false, "it sends output as appends, not snapshots (alone, --deltas shows its unasked "+
				"terminal_output_delta to a plain client as text, which --terminal-output does already)"),
			TerminalOutput: {
				ZedLike: Verdict{false, "it streams terminal_output itself to a client that declares it: the filter stands aside"},
				Plain: Verdict{true, "it streams terminal_output_delta unasked and ends a command with no content and no " +
					"rawOutput, so a plain client sees no command output; with it, live output as text"},
			},
			ExpandPersistedOutput: noSavedOutput,
			ShowChanges:           showChangesProven,
		},
		Notes: []string{"It answers ACP v2 to a client that asks for protocol version 2 (2.3 and later); " +
			"with such a client the filters stand aside."},
		AgentShellVar: "agent-shell-openai-codex-acp-command", CodecompanionAdapter: "codex",
		// Its answer names no variable; authenticate's error names both.
		AuthKeys:    map[string][]string{"api-key": {"CODEX_API_KEY", "OPENAI_API_KEY"}},
		SignInNotes: map[string]string{"chat-gpt": chatGPTNote},
		Logins:      map[string][]string{"chat-gpt": codexLogin},
		SignInHow:   codexSignInHow, LoginCommand: codexLoginCommand,
		Policy: codexAppServerPolicy,
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
			ShowChanges: both(true, "after each Bash command, every file under the project that changed shows as a diff; "+
				"what its own edit tool showed is not repeated; opt-in, not in the configs below"),
		},
		AgentShellVar: "agent-shell-anthropic-claude-acp-command", CodecompanionAdapter: "claude_code",
		Policy: claudePolicy,
	}
}

func claudeACP() Agent {
	a := releaseLine(claudeZed(), "claude-agent-acp 0.100–0.101 (@agentclientprotocol/claude-agent-acp)", map[string]Advice{
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
		Known: true, Name: "gemini-cli 0.61 (gemini --acp)",
		Filters: map[string]Advice{
			ShellToPatch:          both(false, "it sends the command only in the title (a rawInput {command} is recognised when present)"),
			Deltas:                noSnapshots,
			TerminalOutput:        both(false, "it sends no live output and no terminal _meta: nothing to do"),
			ExpandPersistedOutput: noSavedOutput,
			ShowChanges:           showChangesProven,
		},
		Notes: []string{`On its default shell (a PTY) it shows no command output at all; ` +
			`"tools": {"shell": {"enableInteractiveShell": false}} in ~/.gemini/settings.json shows it at the end.`},
		AgentShellVar: "agent-shell-google-gemini-acp-command", CodecompanionAdapter: "gemini_cli",
		AuthKeys: map[string][]string{"gemini-api-key": {"GEMINI_API_KEY"}},
		SignInNotes: map[string]string{"oauth-personal": "without a stored Google login, gemini-cli 0.61 writes a login URL " +
			"on stdout, where the editor reads only ACP, and waits for a code"},
		Logins:       map[string][]string{"oauth-personal": {"~/.gemini/oauth_creds.json"}},
		LoginCommand: "`gemini`, run once in a terminal to sign in with Google,",
		SignInHow:    "set GEMINI_API_KEY where the editor sees it, or run `gemini` in a terminal once and sign in with Google",
		Policy:       geminiPolicy,
	}
}

func opencode() Agent {
	return Agent{
		Known: true, Name: "opencode 1.18 (opencode acp)",
		Filters: map[string]Advice{
			ShellToPatch: both(true, `only when its $SHELL is a POSIX shell and it asks before bash ("permission": {"bash": "ask"} in opencode.json)`),
			Deltas: helpsEach(
				"its updates re-send the whole output so far; they become deltas",
				"its updates re-send the whole output so far; they are coalesced",
			),
			TerminalOutput:        both(false, "it sends no terminal _meta: nothing to do"),
			ExpandPersistedOutput: both(true, "its ...output truncated... final output shows every line"),
			ShowChanges:           showChangesProven,
		},
		AgentShellVar: "agent-shell-opencode-acp-command", CodecompanionAdapter: "opencode",
		SignInNotes: map[string]string{"opencode-login": "it answers authenticate at once; " +
			"the login itself is `opencode auth login`, in a terminal"},
		Policy: opencodePolicy,
	}
}

// kilo is @kilocode/cli, an opencode fork: opencode's shell tool and
// snapshots, measured with 7.7.7 (`kilo acp`).
func kilo() Agent {
	a := opencode()
	a.Name = "kilo 7.7 (kilo acp, @kilocode/cli)"
	a.Filters[ShellToPatch] = both(true, `only when its $SHELL is a POSIX shell and it asks before bash ("permission": {"bash": "ask"}): `+
		"every file its heredocs, echo/printf > f and sed -i provably write shows as a diff in the permission request")
	a.Filters[ExpandPersistedOutput] = both(false, "not measured on the outputs it truncates: the filter reads only opencode's saved files")
	a.Filters[ShowChanges] = showChangesProven
	a.AgentShellVar, a.CodecompanionAdapter = "", "kilocode"
	a.Policy = nil // an opencode fork, but not run under a policy by the tests
	a.SignInNotes = map[string]string{"kilo-login": "it answers authenticate at once; " +
		"the login itself is `kilo auth login`, in a terminal"}
	return a
}

// qwen is @qwen-code/qwen-code, a gemini-cli fork, measured with 0.24.4
// (`qwen --acp`): one final update with the output as text, no live output.
func qwen() Agent {
	return Agent{
		Known: true, Name: "qwen-code 0.24 (qwen --acp, @qwen-code/qwen-code)",
		Filters: map[string]Advice{
			ShellToPatch:          both(false, "its permission request comes before any update that names the command's directory: it stands aside"),
			Deltas:                both(false, "it sends one final update, no snapshots"),
			TerminalOutput:        both(false, "it sends no live output and no terminal _meta: nothing to translate"),
			ExpandPersistedOutput: noSavedOutput,
			ShowChanges:           showChangesProven,
		},
		AuthKeys: map[string][]string{"openai": {"OPENAI_API_KEY"}},
	}
}

// cline is the cline CLI, measured with 3.0.65 (`cline --acp`): its
// run_commands calls carry no content, the output only in the final
// update's rawOutput.
func cline() Agent {
	return Agent{
		Known: true, Name: "cline 3.0 (cline --acp)",
		Filters: map[string]Advice{
			ShellToPatch: both(false, "its run_commands tool takes a list of commands (rawInput.commands), which the filter does not read: it stands aside"),
			Deltas: helpsEach(
				"its command output is only in the final update's rawOutput: it shows in a display terminal the call is given",
				"its command output is only in the final update's rawOutput: it shows as text when the command ends",
			),
			TerminalOutput:        both(false, "it sends no live output and no terminal _meta: nothing to translate"),
			ExpandPersistedOutput: noSavedOutput,
			ShowChanges:           showChangesProven,
		},
		Notes: []string{"It asks the client before every tool call unless its auto_approve session option is on (off by default); " +
			"a command that fails still ends completed, its failure only in rawOutput."},
		CodecompanionAdapter: "cline_cli",
		SignInNotes: map[string]string{"cline": "cline 3.0 answers authenticate by asking Cline's service " +
			"(offline it answered with an error, \"Unable to connect\")"},
		Policy: clinePolicy,
	}
}

// piACP is pi-acp, the adapter that runs the pi CLI in RPC mode, measured
// with 0.0.34 and pi 1.6.0: it streams the terminal-output extension's
// terminal_output appends to every client, asked or not, and its bash calls
// carry no rawInput or rawOutput.
func piACP() Agent {
	return Agent{
		Known: true, Name: "pi-acp 0.0 (pi-acp, with pi)",
		Filters: map[string]Advice{
			ShellToPatch: both(false, "its bash calls carry no rawInput (the command is only in the title) and it never asks permission: it stands aside"),
			Deltas: both(false, "it sends output as appends, not snapshots (alone, --deltas shows its unasked "+
				"terminal_output to a plain client as text, which --terminal-output does already)"),
			TerminalOutput: {
				ZedLike: Verdict{false, "it streams terminal_output itself to every client: the filter stands aside"},
				Plain: Verdict{true, "it streams the extension's terminal_output unasked, with a terminal content item, " +
					"so a plain client sees no command output; with it, live output as text"},
			},
			ExpandPersistedOutput: both(false, "past 2,000 lines pi shows the last ones and names the file it saved the whole output to "+
				"(/tmp/pi-bash-*.log), which the filter does not read"),
			ShowChanges: showChangesProven,
		},
		Notes: []string{"It starts the pi CLI (@earendil-works/pi-coding-agent, 0.81 or later), which needs Node.js 22.19 or later; " +
			"pi never asks before running a command."},
		SignInNotes: map[string]string{"pi_terminal_login": "pi-acp answers authenticate at once; " +
			"API keys or a login are set up by running pi in a terminal"},
		Policy: neverAsksPolicy,
	}
}

func protocolV2(v int) Agent {
	why := "it speaks ACP v" + strconv.Itoa(v) + ": the filter stands aside"
	shellToPatch := both(false, why)
	if v == 2 {
		// Proven on v2 with claude-agent-acp 0.101 and codex-acp 2.6 (TestACPv2ShellToPatch).
		shellToPatch = both(true, "every file its shell commands provably write shows as a v2 diff in the call and its permission request")
	}
	return Agent{
		Known: true, Name: "an ACP v" + strconv.Itoa(v) + " agent",
		Filters: map[string]Advice{
			ShellToPatch: shellToPatch, Deltas: both(false, why+" (v2 streams display terminals itself)"),
			TerminalOutput: both(false, why+" (v2 streams display terminals itself)"), ExpandPersistedOutput: both(false, why),
			ShowChanges: both(false, why),
		},
	}
}

func unknown() Agent {
	return Agent{
		Name: "not one the proxy is proven against: this is the general advice",
		Filters: map[string]Advice{
			ShellToPatch: both(true, "if it reports shell commands in rawInput.command, every file one provably writes shows as a diff"),
			Deltas: {
				ZedLike: Verdict{false, "only for an agent that re-sends the whole output so far"},
				Plain:   Verdict{true, "if it re-sends the whole output so far, the updates are coalesced"},
			},
			TerminalOutput: helpsEach(
				"if it streams terminal output, recovers what it drops",
				"if it streams terminal output when asked, shows it live as text",
			),
			ExpandPersistedOutput: both(false, "only claude-agent-acp's and opencode's saved outputs are known"),
			ShowChanges:           showChangesUnproven,
		},
		Notes: []string{"A filter stands aside on a message it does not know, so these flags are safe to try; " +
			"acp-proxy --record FILE, then acp-proxy replay --summary with the flags, shows what each changed."},
	}
}

// versionBelow reports whether version (major.minor[.patch…]) is below
// bound (major.minor); a version it cannot read is below every bound, so
// that it falls in no proven range.
func versionBelow(version, bound string) bool {
	ma, mi, ok := majorMinor(version)
	bma, bmi, bok := majorMinor(bound)
	if !ok || !bok {
		return true
	}
	return ma < bma || (ma == bma && mi < bmi)
}

// nextMinor is the minor release after bound: "0.16" → "0.17".
func nextMinor(bound string) string {
	ma, mi, _ := majorMinor(bound)
	return strconv.Itoa(ma) + "." + strconv.Itoa(mi+1)
}

func majorMinor(version string) (major, minor int, ok bool) {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.SplitN(parts[1], "-", 2)[0])
	return ma, mi, err1 == nil && err2 == nil
}
