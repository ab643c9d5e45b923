package doctor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// What --policy can stop before it runs, per agent and mode: the one place
// these facts are kept. docs/policy.md's table of them is PolicyTable's
// output (TestPolicyDocMatchesDoctor).

// PolicyReach is what --policy can do with an agent.
type PolicyReach struct {
	// Modes are the agent's modes, each with what the policy can stop in
	// it before it runs.
	Modes []PolicyMode
	// AskSetting is the agent's setting that makes it ask before it runs
	// a call, which the policy then decides ("" when it has none).
	AskSetting string
}

// PolicyMode is one mode of an agent.
type PolicyMode struct {
	Mode string // as the agent's settings name it
	// Before is which calls the policy can stop before they run: those
	// the agent asks permission for. "" is none: the agent runs each call
	// without asking, and the policy can only mark it when it ends (and
	// cancel the turn, for a stop rule).
	Before string
}

// clientRequests is what the policy decides before the client acts,
// whatever the agent and its mode.
const clientRequests = "whatever the mode, the requests it asks the client to carry out " +
	"(fs/write_text_file, fs/read_text_file, terminal/create) are decided before the client acts"

var (
	codexPolicy = &PolicyReach{
		Modes: []PolicyMode{
			{`approval_policy = "untrusted"`, "every command codex does not itself trust as read-only"},
			{`approval_policy = "never"`, ""},
		},
		AskSetting: `approval_policy = "untrusted" in $CODEX_HOME/config.toml (~/.codex/config.toml)`,
	}
	codexAppServerPolicy = &PolicyReach{
		Modes: []PolicyMode{
			{"workspace-write", "the commands the model asks to run outside its sandbox (escalations); the rest run in the sandbox without asking"},
			{"agent (its default), agent-full-access", ""},
		},
		AskSetting: "its workspace-write mode (the session's mode, or INITIAL_AGENT_MODE=workspace-write)",
	}
	claudePolicy = &PolicyReach{
		Modes: []PolicyMode{
			{"default", "its Bash commands and edits that Claude Code's own allow rules do not allow"},
			{"acceptEdits", "its Bash commands; its edits run without asking"},
			{"bypassPermissions", ""},
		},
		AskSetting: `"permissions": {"defaultMode": "default"} in its settings.json`,
	}
	geminiPolicy = &PolicyReach{
		Modes: []PolicyMode{
			{"default", "its shell commands and edits, but its request names a command only in its title: " +
				"only a rule about every Bash call (deny Bash) decides one, the others are asked"},
			{"yolo", ""},
		},
		AskSetting: "its default approval mode (no --yolo)",
	}
	opencodePolicy = &PolicyReach{
		Modes: []PolicyMode{
			{"default", ""},
			{`"permission": {"bash": "ask", "edit": "ask"}`, "its shell commands and edits"},
		},
		AskSetting: `"permission": {"bash": "ask", "edit": "ask"} in opencode.json`,
	}
	clinePolicy = &PolicyReach{
		Modes: []PolicyMode{
			{"default (auto_approve off)", "every call (its run_commands name a list of commands, which the policy does not read: they are asked)"},
			{"auto_approve on", ""},
		},
		AskSetting: "its auto_approve session option off (its default)",
	}
	neverAsksPolicy = &PolicyReach{Modes: []PolicyMode{{"any", ""}}}
	// hooksPolicy is an agent that advertises blocking pre-tool hooks of the client
	// (agentCapabilities._meta["x.ai/hooks"], grok-build 1.0): the proxy registers one and
	// answers it before each call, whatever the mode (TestPolicyGrokHooks).
	hooksPolicy = &PolicyReach{Modes: []PolicyMode{{"any (grok-build: its default, --always-approve)",
		"every call, before it runs and before the agent asks anyone: it asks the client's pre-tool hook " +
			"(x.ai/hooks), which the policy answers; a denied call never runs, and what the policy allows " +
			"or asks goes on to the agent's own permission flow (which asks only where its mode asks)"}}}
)

// advertisesHooks reports whether an initialize answer's capabilities offer blocking
// pre_tool_use hooks of the client (x.ai/hooks).
func advertisesHooks(caps json.RawMessage) bool {
	var c struct {
		Meta struct {
			Hooks struct {
				BlockingEvents []string `json:"blockingEvents"`
			} `json:"x.ai/hooks"`
		} `json:"_meta"`
	}
	return json.Unmarshal(caps, &c) == nil && slices.Contains(c.Meta.Hooks.BlockingEvents, "pre_tool_use")
}

// writePolicy says what --policy can stop before it runs with this agent.
func (r *Report) writePolicy(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Policy (--policy FILE), what it can stop before it runs:")
	p := r.Agent.Policy
	if p == nil && advertisesHooks(r.Answer.Capabilities) {
		p = hooksPolicy
	}
	if p == nil {
		writeWrapped(w, "  ", "    ", "not measured with this agent: a call it asks permission for is decided before it runs, "+
			"a call it runs without asking is marked when it ends")
	} else {
		for _, m := range p.Modes {
			writeWrapped(w, "  "+m.Mode+": ", "    ", beforeText(m.Before))
		}
		if p.AskSetting != "" {
			writeWrapped(w, "  ", "    ", "To make it ask: "+p.AskSetting+".")
		}
	}
	writeWrapped(w, "  ", "    ", strings.ToUpper(clientRequests[:1])+clientRequests[1:]+".")
}

// beforeText says what a mode lets the policy stop.
func beforeText(before string) string {
	if before == "" {
		return "nothing: it runs each call without asking; the policy marks one it would have denied when it ends, " +
			"and a stop rule cancels the turn"
	}
	return before
}

// PolicyTable is the table of docs/policy.md's "What each agent lets it stop": per proven
// agent and mode, what the policy stops before it runs, and the setting that makes it ask.
func PolicyTable() string {
	var reaches []*PolicyReach
	names := map[*PolicyReach][]string{} // the release lines of each, in order
	for _, r := range proven {
		a := r.advice()
		if a.Policy == nil {
			continue
		}
		if names[a.Policy] == nil {
			reaches = append(reaches, a.Policy)
		}
		names[a.Policy] = append(names[a.Policy], policyName(a.Name))
	}
	var b strings.Builder
	b.WriteString("| agent | mode | what the policy stops before it runs |\n|---|---|---|\n")
	for _, p := range reaches {
		name := strings.Join(names[p], ", ")
		for _, m := range p.Modes {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, cellText(m.Mode), cellText(beforeOrNothing(m.Before)))
		}
		if p.AskSetting != "" {
			fmt.Fprintf(&b, "| %s | to make it ask | %s |\n", name, cellText(p.AskSetting))
		}
	}
	return b.String()
}

// policyName is an agent's name for the table: the release line, without the package.
func policyName(name string) string {
	name, _, _ = strings.Cut(name, " (")
	return name
}

func beforeOrNothing(before string) string { return cmp.Or(before, "nothing: marked when it ends") }

// cellText is s in a table cell: its pipes escaped.
func cellText(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
