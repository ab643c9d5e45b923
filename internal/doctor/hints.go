package doctor

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/registry"
)

// acpMode is a known agent whose command is an ACP agent only with an
// argument: without it, it is an interactive CLI that waits, or prints its
// usage, and never answers initialize.
type acpMode struct {
	commands, packages []string // its executables' names, its npm packages
	args               []string // any of them makes it an ACP agent
}

var acpModes = []acpMode{
	{[]string{"opencode"}, []string{"opencode-ai"}, []string{"acp"}},
	{[]string{"kilo", "kilocode"}, []string{"@kilocode/cli"}, []string{"acp"}},
	{[]string{"gemini"}, []string{"@google/gemini-cli"}, []string{"--acp", "--experimental-acp"}},
	{[]string{"qwen"}, []string{"@qwen-code/qwen-code"}, []string{"--acp", "--experimental-acp"}},
}

// missingACPArgs are the arguments argv lacks to run a known agent (who:
// its command or package) as an ACP agent: one of acpModes, or a registry
// agent its command names (an npx or uvx package, a binary's executable)
// that the registry starts with arguments, none of which argv has. nil when
// it lacks none, or the agent is not one of those.
func missingACPArgs(argv []string) (args []string, who string) {
	name := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(filepath.Base(argv[0])), ".cmd"), ".exe")
	has := func(want []string) bool {
		return slices.ContainsFunc(argv[1:], func(a string) bool { return slices.Contains(want, a) })
	}
	for _, m := range acpModes {
		who = ""
		if slices.Contains(m.commands, name) {
			who = name
		}
		for _, a := range argv[1:] {
			if p := registry.PackageName(a); who == "" && slices.Contains(m.packages, p) {
				who = p
			}
		}
		if who != "" {
			if has(m.args) {
				return nil, ""
			}
			return m.args[:1], who
		}
	}
	e, who := registryCommand(name, argv[1:])
	if who == "" || len(e.Args()) == 0 || has(e.Args()) {
		return nil, ""
	}
	return e.Args(), who
}

// registryCommand is the registry agent whose package args name (npx's or
// uvx's argument), or whose binary's executable is name, and that package
// or name (who); who is "" when there is none.
func registryCommand(name string, args []string) (e registry.Entry, who string) {
	reg := registry.Snapshot()
	for _, a := range args {
		p := registry.PackageName(a)
		for _, e := range reg.Agents {
			d := e.Distribution
			if p != "" && ((d.Npx != nil && registry.PackageName(d.Npx.Package) == p) ||
				(d.Uvx != nil && registry.PackageName(d.Uvx.Package) == p)) {
				return e, p
			}
		}
	}
	if e, ok := reg.ByCommand(name); ok {
		return e, name
	}
	return registry.Entry{}, ""
}

// CommandMistake says, when argv visibly lacks the arguments that make a
// known agent an ACP agent (opencode without acp, qwen without --acp), which
// and the command that has them; "" when it lacks none. Such a command
// never answers initialize: it waits as an interactive CLI, or prints its
// usage, so doctor says so before starting it.
func CommandMistake(argv []string) string {
	args, who := missingACPArgs(argv)
	if args == nil {
		return ""
	}
	fixed := commandLine(append(slices.Clone(argv), args...))
	return fmt.Sprintf("%s is an ACP agent only with %s: acp-proxy doctor -- %s", who, strings.Join(args, " "), fixed)
}

// WriteFailure writes what doctor knows about an agent that did not
// answer (err, from Probe): what it printed on stdout instead of ACP, and
// the fix in one line for the usual mistakes (an interactive CLI started
// without its ACP argument; an interpreter its #! line runs that is not on
// PATH; a Node too old for the agent).
func WriteFailure(w io.Writer, argv []string, err error, script *Script) {
	var pe *ProbeError
	if errors.As(err, &pe) && len(pe.Stdout) > 0 {
		fmt.Fprintln(w, "It wrote on stdout, where an editor reads only ACP:")
		for _, line := range pe.Stdout {
			fmt.Fprintf(w, "  | %s\n", clip(line, 200))
		}
	}
	if fix := CommandMistake(argv); fix != "" {
		fmt.Fprintln(w, "Fix: "+fix)
	}
	if script != nil {
		for _, p := range []string{script.NotFound(), script.EnginesProblem()} {
			if p != "" {
				writeWrapped(w, "Fix: ", "  ", p)
			}
		}
	}
}
