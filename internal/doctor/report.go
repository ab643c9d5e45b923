package doctor

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/registry"
)

// Report is what doctor prints about one agent.
type Report struct {
	Answer *Answer
	Agent  Agent
	// Argv is the agent's command as given, Proxy the absolute path of
	// acp-proxy, for the editor configs.
	Argv  []string
	Proxy string
	// Given are the filter flags doctor was given.
	Given []string
	// Script is the agent as a script its #! line runs through env, or on
	// node (nil when it is not one).
	Script *Script
	// ProxyTemporary says that Proxy is a build that will not stay (go
	// run's), and how to install one that does.
	ProxyTemporary string
	// LookupEnv reads the environment the editor is assumed to share, for
	// the sign-in method (nil: os.LookupEnv).
	LookupEnv func(string) (string, bool)
}

// NewReport recognises the agent that gave answer.
func NewReport(answer *Answer, argv []string, proxyPath string, given []string) *Report {
	return &Report{Answer: answer, Agent: identify(answer, argv), Argv: argv, Proxy: proxyPath, Given: given}
}

// reportWidth is the width the report's prose is wrapped to.
const reportWidth = 100

// WriteText writes the report in plain words.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	r.writeAgent(bw)
	r.writeFilters(bw)
	r.writePolicy(bw)
	r.writeEditors(bw)
	return bw.Flush()
}

func (r *Report) writeAgent(w io.Writer) {
	a := r.Answer
	name := cmp.Or(a.Info.Name, "(no agentInfo.name)")
	if a.Info.Version != "" {
		name += " " + a.Info.Version
	}
	if a.Info.Title != "" {
		name += fmt.Sprintf(" (%q)", a.Info.Title)
	}
	if a.NoInfo {
		name = "no agentInfo in its answer (ACP leaves it optional): known by its command only"
	}
	fmt.Fprintf(w, "Agent:      %s\n", name)
	fmt.Fprintf(w, "Known as:   %s\n", r.Agent.Name)
	proven := r.Agent.Proven
	if a.Session != nil && !r.works() && strings.HasPrefix(proven, "yes") {
		proven += "; but here it started no session (Session, below): it does not work as things are"
	}
	writeWrapped(w, "Proven:     ", "            ", proven)
	writeWrapped(w, "Registry:   ", "            ", r.registryLine())
	fmt.Fprintf(w, "Command:    %s\n", strings.Join(r.command(), " "))
	fmt.Fprintf(w, "            started in a temporary directory; initialize and session/new were sent, as\n")
	fmt.Fprintf(w, "            a client without the terminal-output extension, with protocol version 1\n")
	writeWrapped(w, "Session:    ", "            ", r.sessionLine())
	fmt.Fprintf(w, "Protocol:   ACP v%d\n", a.ProtocolVersion)
	fmt.Fprintln(w, "Advertises:")
	for _, line := range capabilityLines(a.Capabilities) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w, "Sign-in methods:")
	if len(a.AuthMethods) == 0 {
		writeWrapped(w, "  ", "    ", "none advertised: no editor can sign it in (codecompanion sends no authenticate); "+
			"it works only once it is signed in its own way, or needs no sign-in")
	}
	for _, m := range a.AuthMethods {
		kind := ""
		if m.Type != "" {
			kind = " (" + m.Type + ")"
		}
		writeWrapped(w, "  ", "      ", m.ID+kind+": "+strings.TrimSpace(m.Name+". "+m.Description))
	}
	for _, line := range a.NotJSON {
		writeWrapped(w, "", "  ", "Warning: the agent wrote a line on stdout that is not JSON; an editor "+
			"reads only ACP there: "+clip(line, 120))
	}
	for _, note := range r.Agent.Notes {
		writeWrapped(w, "", "  ", "Note: "+note)
	}
	if r.Script != nil {
		for _, note := range r.Script.Notes() {
			writeWrapped(w, "", "  ", "Note: "+note)
		}
	}
	if r.ProxyTemporary != "" {
		writeWrapped(w, "", "  ", "Warning: "+r.ProxyTemporary)
	}
}

// registryLine says which ACP registry agent this is, and what the
// registry installs for it.
func (r *Report) registryLine() string {
	snap := registry.Snapshot()
	e := r.Agent.Registry
	if e == nil {
		return fmt.Sprintf("not an agent of the ACP registry (its %d agents as of %s)", len(snap.Agents), snap.Date)
	}
	return fmt.Sprintf("%s (%q): %s, as of %s", e.ID, e.Name, e.Installs(), snap.Date)
}

func (r *Report) writeFilters(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Filters, for a Zed-like client (it renders _meta.terminal_output) and a plain one:")
	for _, flag := range filterset.Filters {
		adv := r.Agent.Filters[flag]
		label := flag
		if slices.Contains(r.Given, flag) {
			label += " (given)"
		}
		fmt.Fprintf(w, "  %s\n", label)
		if adv.ZedLike == adv.Plain {
			writeWrapped(w, "    both:     ", verdictIndent, verdictText(adv.ZedLike))
			continue
		}
		writeWrapped(w, "    Zed-like: ", verdictIndent, verdictText(adv.ZedLike))
		writeWrapped(w, "    plain:    ", verdictIndent, verdictText(adv.Plain))
	}
	for _, flag := range r.Given {
		if adv, ok := r.Agent.Filters[flag]; ok && !adv.ZedLike.Helps && !adv.Plain.Helps {
			fmt.Fprintf(w, "You gave %s: for this agent it changes nothing.\n", flag)
		}
	}
}

// verdictIndent indents the lines a verdict wraps to.
const verdictIndent = "              "

func verdictText(v Verdict) string {
	if v.Helps {
		return "helps: " + v.Why
	}
	return "no: " + v.Why
}

// capabilityLines says what agentCapabilities holds, one member a line:
// "loadSession", "promptCapabilities: image, embeddedContext".
func capabilityLines(raw json.RawMessage) []string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || len(caps) == 0 {
		return []string{"nothing (no agentCapabilities)"}
	}
	var lines []string
	for _, k := range sortedKeys(caps) {
		v := caps[k]
		var sub map[string]json.RawMessage
		switch {
		case string(v) == "true":
			lines = append(lines, k)
		case string(v) == "false", string(v) == "null":
		case json.Unmarshal(v, &sub) == nil && len(sub) == 0:
			lines = append(lines, k) // present: a capability without options
		case json.Unmarshal(v, &sub) == nil:
			lines = append(lines, k+": "+cmp.Or(strings.Join(enabled(sub), ", "), "none"))
		default:
			lines = append(lines, k+": "+string(v))
		}
	}
	return lines
}

// enabled are the members of m that are on: true, or an object.
func enabled(m map[string]json.RawMessage) []string {
	var on []string
	for _, k := range sortedKeys(m) {
		if v := strings.TrimSpace(string(m[k])); v == "true" || strings.HasPrefix(v, "{") {
			on = append(on, k)
		}
	}
	return on
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeWrapped writes prefix and text wrapped to reportWidth, later lines
// after indent.
func writeWrapped(w io.Writer, prefix, indent, text string) {
	line := prefix
	for i, word := range strings.Fields(text) {
		if i > 0 && len([]rune(line))+1+len([]rune(word)) > reportWidth {
			fmt.Fprintln(w, line)
			line = indent + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
