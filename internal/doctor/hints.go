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

// missingACPArg is the argument argv lacks to run a known agent (who: its
// command or package) as an ACP agent; "" when it lacks none, or the agent
// is not one of those.
func missingACPArg(argv []string) (arg, who string) {
	for _, m := range acpModes {
		name := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(filepath.Base(argv[0])), ".cmd"), ".exe")
		if slices.Contains(m.commands, name) {
			who = name
		}
		for _, a := range argv[1:] {
			if p := registry.PackageName(a); who == "" && slices.Contains(m.packages, p) {
				who = p
			}
		}
		if who == "" {
			continue
		}
		if slices.ContainsFunc(argv[1:], func(a string) bool { return slices.Contains(m.args, a) }) {
			return "", ""
		}
		return m.args[0], who
	}
	return "", ""
}

// WriteFailure writes what doctor knows about an agent that did not
// answer (err, from Probe): what it printed on stdout instead of ACP, and
// the fix in one line for the usual mistakes (an interactive CLI started
// without its ACP argument; a Node too old for the agent).
func WriteFailure(w io.Writer, argv []string, err error, node *NodeScript) {
	var pe *ProbeError
	if errors.As(err, &pe) && len(pe.Stdout) > 0 {
		fmt.Fprintln(w, "It wrote on stdout, where an editor reads only ACP:")
		for _, line := range pe.Stdout {
			fmt.Fprintf(w, "  | %s\n", clip(line, 200))
		}
	}
	if arg, who := missingACPArg(argv); arg != "" {
		fixed := commandLine(append(slices.Clone(argv), arg))
		fmt.Fprintf(w, "Fix: %s is an ACP agent only with %s: acp-proxy doctor -- %s\n", who, arg, fixed)
	}
	if node != nil {
		if p := node.EnginesProblem(); p != "" {
			writeWrapped(w, "Fix: ", "  ", p)
		}
	}
}
