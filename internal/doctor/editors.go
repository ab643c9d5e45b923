package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
)

// clientKind is which kind of client an editor is, for the filters.
type clientKind int

const (
	zedLike clientKind = iota // renders _meta.terminal_output
	plain                     // does not
	either                    // not published: the flags of both, safe for both
)

// editor is one editor doctor writes a config for.
type editor struct {
	name string
	kind clientKind
}

var editors = []editor{
	{"Zed (Zed-like)", zedLike},
	{"JetBrains (not published: both kinds' flags)", either},
	{"agent-shell, codecompanion, acpx (plain)", plain},
}

// optIn are the filter flags the report describes but leaves out of the
// editors' configs: --show-changes adds an update after every command and
// scans the project for it, which a user chooses.
var optIn = map[string]bool{filterset.ShowChanges: true}

// flagsFor are the filter flags that help a client of kind, but the
// opt-in ones.
func (r *Report) flagsFor(kind clientKind) []string {
	var flags []string
	for _, f := range filterset.Filters {
		adv := r.Agent.Filters[f]
		if optIn[f] {
			continue
		}
		if (kind != plain && adv.ZedLike.Helps) || (kind != zedLike && adv.Plain.Helps) {
			flags = append(flags, f)
		}
	}
	return flags
}

// command is the agent's command with its executable's absolute path:
// an editor may start it with a smaller PATH than this shell's.
func (r *Report) command() []string {
	argv := append([]string{}, r.Argv...)
	if r.Answer.Path != "" {
		argv[0] = r.Answer.Path
	}
	return argv
}

// proxyArgs is acp-proxy's argument list for kind: flags, --, the agent.
func (r *Report) proxyArgs(kind clientKind) []string {
	return append(append(r.flagsFor(kind), "--"), r.command()...)
}

func (r *Report) writeEditors(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags for each editor (the filters adapt to what the client advertises, so a")
	fmt.Fprintln(w, "Zed-like client's flags are safe for a plain one too, and the other way round):")
	for _, e := range editors {
		flags := strings.Join(r.flagsFor(e.kind), " ")
		if flags == "" {
			flags = "none: a byte-exact relay"
		}
		fmt.Fprintf(w, "  %-46s %s\n", e.name+":", flags)
	}
	name := r.Answer.Info.Name
	if name == "" {
		name = "agent"
	}
	name = strings.TrimPrefix(name[strings.LastIndex(name, "/")+1:], "@") + " (proxy)"
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Zed, settings.json:")
	fmt.Fprintf(w, "  \"agent_servers\": {%s: {\"type\": \"custom\", \"command\": %s, \"args\": %s}}\n",
		jsonString(name), jsonString(r.Proxy), jsonList(r.proxyArgs(zedLike)))
	fmt.Fprintln(w, "JetBrains, ~/.jetbrains/acp.json:")
	fmt.Fprintf(w, "  {\"agent_servers\": {%s: {\"command\": %s, \"args\": %s}}}\n",
		jsonString(name), jsonString(r.Proxy), jsonList(r.proxyArgs(either)))
	r.writeAgentShell(w)
	r.writeCodecompanion(w)
	fmt.Fprintln(w, "acpx (a one-shot prompt; acpx keys sessions by this command, so keep it stable):")
	fmt.Fprintf(w, "  acpx --agent %s exec 'hello'\n", shellQuote(commandLine(append([]string{r.Proxy}, r.proxyArgs(plain)...))))
	if r.Node != nil {
		if argv := r.Node.Command(r.Argv); argv != nil {
			fmt.Fprintln(w, "An editor without node on its PATH: after \"--\" in any config above, name node by its path,")
			fmt.Fprintln(w, "as in Zed's:")
			fmt.Fprintf(w, "  \"agent_servers\": {%s: {\"type\": \"custom\", \"command\": %s, \"args\": %s}}\n",
				jsonString(name), jsonString(r.Proxy), jsonList(append(append(r.flagsFor(zedLike), "--"), argv...)))
		}
	}
	if r.ProxyTemporary != "" {
		writeWrapped(w, "", "  ", "Warning: "+r.ProxyTemporary)
	}
}

func (r *Report) writeAgentShell(w io.Writer) {
	list := lispList(append([]string{r.Proxy}, r.proxyArgs(plain)...))
	if r.Agent.AgentShellVar == "" {
		fmt.Fprintln(w, "agent-shell (Emacs), as the command of the agent's configuration:")
		fmt.Fprintf(w, "  '%s\n", list)
		return
	}
	fmt.Fprintln(w, "agent-shell (Emacs):")
	fmt.Fprintf(w, "  (setq %s '%s)\n", r.Agent.AgentShellVar, list)
}

func (r *Report) writeCodecompanion(w io.Writer) {
	adapter := r.Agent.CodecompanionAdapter
	if adapter == "" {
		fmt.Fprintln(w, "codecompanion (Neovim), as the default command of an ACP adapter:")
	} else {
		fmt.Fprintf(w, "codecompanion (Neovim), in adapters.acp.%s, extending %q:\n", adapter, adapter)
	}
	fmt.Fprintf(w, "  commands = { default = %s }\n", luaList(append([]string{r.Proxy}, r.proxyArgs(plain)...)))
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonList(items []string) string {
	b, _ := json.Marshal(items)
	return strings.ReplaceAll(string(b), `","`, `", "`)
}

// lispList is items as an Emacs Lisp list of strings; Go's quoting of
// printable text is Lisp's.
func lispList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "(" + strings.Join(q, " ") + ")"
}

// luaList is items as a Lua table of strings.
func luaList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "{ " + strings.Join(q, ", ") + " }"
}

// commandLine joins argv for a program that splits a command string on
// spaces, double-quoting an argument that has one.
func commandLine(argv []string) string {
	q := make([]string, len(argv))
	for i, s := range argv {
		q[i] = s
		if s == "" || strings.ContainsAny(s, " \t\"'\\") {
			q[i] = strconv.Quote(s)
		}
	}
	return strings.Join(q, " ")
}

// shellQuote is s as one POSIX shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
