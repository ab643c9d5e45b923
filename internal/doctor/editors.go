package doctor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
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
	if r.Script != nil {
		if argv := r.Script.Command(r.Argv); argv != nil {
			interp := r.Script.Interpreter
			fmt.Fprintf(w, "An editor without %s on its PATH: after \"--\" in any config above, name %s by its path,\n", interp, interp)
			fmt.Fprintln(w, "as in Zed's:")
			fmt.Fprintf(w, "  \"agent_servers\": {%s: {\"type\": \"custom\", \"command\": %s, \"args\": %s}}\n",
				jsonString(name), jsonString(r.Proxy), jsonList(append(append(r.flagsFor(zedLike), "--"), argv...)))
		}
	}
	writeWrapped(w, "", "  ", `To watch a session live, add "--serve", ":0", "--log-file", "~/acp-proxy.log" `+
		`before "--" in any config above, and open the URL the log gives as "live view" `+
		`(README: Watching a session live).`)
	writeWrapped(w, "", "  ", `To send its spans to Jaeger, Grafana Tempo or any OpenTelemetry collector, add `+
		`"--otel-endpoint", "http://localhost:4318" before "--" in any config above, or set `+
		`OTEL_EXPORTER_OTLP_ENDPOINT where the editor starts it (README: OpenTelemetry).`)
	if r.ProxyTemporary != "" {
		writeWrapped(w, "", "  ", "Warning: "+r.ProxyTemporary)
	}
}

func (r *Report) writeAgentShell(w io.Writer) {
	list := lispList(append([]string{r.Proxy}, r.proxyArgs(plain)...))
	if r.Agent.AgentShellVar == "" {
		fmt.Fprintln(w, "agent-shell (Emacs), as the command of the agent's configuration:")
		fmt.Fprintf(w, "  '%s\n", list)
	} else {
		fmt.Fprintln(w, "agent-shell (Emacs):")
		fmt.Fprintf(w, "  (setq %s '%s)\n", r.Agent.AgentShellVar, list)
	}
	writeWrapped(w, "  ", "  ", "What it shows (agent-shell 0.63.6 in Emacs 30, with codex-acp 0.16 through this config): "+
		"a turn's tool calls under one header that starts collapsed, \"▶ Ran a command\" "+
		"(agent-shell-activity-group-expand-by-default is nil); expanded, each call's status and title, "+
		"\"[✓][run] printf …\", itself collapsed (agent-shell-tool-use-expand-by-default is nil); expanded, "+
		"the command and its output, each in a block labelled by its fence's language. "+
		"It does not declare the terminal-output extension: output an agent sends only as terminal _meta "+
		"reaches it, as text, only through --terminal-output.")
}

func (r *Report) writeCodecompanion(w io.Writer) {
	sign := r.signIn()
	fmt.Fprintln(w, "codecompanion (Neovim), a whole setup call for init.lua (codecompanion.nvim v19.22):")
	for _, line := range r.codecompanionSetup(sign.Method) {
		fmt.Fprintln(w, "  "+line)
	}
	if sign.Method != "" {
		writeWrapped(w, "  ", "  ", "auth_method: codecompanion authenticates with it before the first session and stops "+
			"when the agent does not advertise it. "+sign.Why)
	}
	if r.Answer.Session.AuthRequired() {
		writeWrapped(w, "  ", "  ", "The agent refused doctor's session until it is signed in (Session, above): "+
			"no config starts a session until it is signed in.")
	}
	shows := "What it shows: each tool call as one line, \"Kind: target\" (the file, or the command), and never " +
		"the call's output (with opts = { verbose_output = true } in the adapter, a finished call adds up to 100 " +
		"characters of its text); so of the flags only --shell-to-patch changes what you see: a shell write's line " +
		"names the file (\"Edit: path\"), a write asked for permission opens codecompanion's diff view, and a " +
		"script that only writes adds the file to the files the agent edited (require(\"codecompanion\").changes())."
	if !slices.Contains(r.flagsFor(plain), ShellToPatch) {
		shows += " For this agent --shell-to-patch does nothing, so no flag changes what codecompanion shows."
	}
	writeWrapped(w, "  ", "  ", shows)
}

// codecompanionSetup is a require("codecompanion").setup call that runs
// the agent through the proxy, signing in with method ("" for none), as
// the chat's adapter: the agent's own adapter extended, or an adapter of
// its own in the shape codecompanion's documentation gives.
func (r *Report) codecompanionSetup(method string) []string {
	command := "commands = { default = " + luaList(append([]string{r.Proxy}, r.proxyArgs(plain)...)) + " },"
	name := r.Agent.CodecompanionAdapter
	lines := []string{`require("codecompanion").setup({`, "  adapters = {", "    acp = {"}
	if name != "" {
		lines = append(lines, "      "+name+" = function()",
			"        return require(\"codecompanion.adapters\").extend("+luaString(name)+", {",
			"          "+command)
		if method != "" {
			lines = append(lines, "          defaults = { auth_method = "+luaString(method)+" },")
		}
		lines = append(lines, "        })")
	} else {
		name = r.luaAdapterName()
		defaults := "mcpServers = {}, timeout = 20000"
		if method != "" {
			defaults = "auth_method = " + luaString(method) + ", " + defaults
		}
		lines = append(lines, "      "+name+" = function()",
			"        return {",
			"          name = "+luaString(name)+",",
			"          formatted_name = "+luaString(r.displayName())+",",
			`          type = "acp",`,
			`          roles = { llm = "assistant", user = "user" },`,
			"          "+command,
			"          defaults = { "+defaults+" },",
			"          parameters = {",
			"            protocolVersion = 1,",
			"            clientCapabilities = { fs = { readTextFile = true, writeTextFile = true } },",
			`            clientInfo = { name = "CodeCompanion.nvim", version = "1.0.0" },`,
			"          },",
			"          handlers = {",
			"            setup = function(self) return true end,",
			"            form_messages = function(self, messages, capabilities)",
			`              return require("codecompanion.adapters.acp.helpers").form_messages(self, messages, capabilities)`,
			"            end,",
			"            on_exit = function(self, code) end,",
			"          },",
			"        }")
	}
	return append(lines, "      end,", "    },", "  },",
		"  interactions = { chat = { adapter = "+luaString(name)+" } },", "})")
}

// luaAdapterName is a Lua identifier for an adapter of the agent's own:
// its agentInfo.name in lower case, other characters as "_", never one of
// the keys codecompanion reads in adapters.acp itself.
func (r *Report) luaAdapterName() string {
	var b strings.Builder
	for _, c := range strings.ToLower(r.Answer.Info.Name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9' && b.Len() > 0:
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	name := cmp.Or(strings.TrimSuffix(b.String(), "_"), "agent")
	if name == "opts" || name == "extend" {
		// adapters.acp's own keys, not adapters.
		name += "_agent"
	}
	return name
}

// displayName is the agent's name for an editor's menu.
func (r *Report) displayName() string {
	return cmp.Or(r.Answer.Info.Title, r.Answer.Info.Name, "agent") + " (proxy)"
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
		q[i] = luaString(s)
	}
	return "{ " + strings.Join(q, ", ") + " }"
}

// luaString is s as a Lua string literal that Lua 5.1 and LuaJIT (the
// Lua of Neovim) read back as the same bytes: a quote and a backslash
// escaped, other bytes below 0x20 and 0x7f as decimal escapes \ddd
// (Lua 5.1 has no \x), the rest as they are.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
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
