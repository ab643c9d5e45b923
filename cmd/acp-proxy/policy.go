package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/filters/policy"
	"github.com/acp-proxy/acp-proxy/internal/filterset"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// policyValue is --policy FILE: the file is read and parsed as the flag is parsed, so a
// malformed policy stops the proxy before the agent starts, with the line and why.
type policyValue struct{ cfg *filterset.Config }

func (v policyValue) String() string {
	if v.cfg == nil || v.cfg.Policy == nil {
		return ""
	}
	return v.cfg.Policy.Name
}

func (v policyValue) Set(s string) error {
	name, err := expandHome(s)
	if err != nil {
		return err
	}
	p, err := policy.Load(name)
	if err != nil {
		return err
	}
	v.cfg.Policy = p
	return nil
}

func (policyValue) Type() string { return "FILE" }

// addPolicyFlag registers --policy.
func addPolicyFlag(fs *pflag.FlagSet, cfg *filterset.Config) {
	fs.Var(policyValue{cfg}, "policy",
		"allow, deny or ask each tool call and client request by the rules in FILE (docs/policy.md); a file that does not parse stops the proxy")
}

const policyUsage = `acp-proxy policy check replays recorded sessions through a policy and prints,
per permission request, client request and call the agent ran without asking,
what the policy would have decided beside what the user decided. Nothing is
sent anywhere: try a policy on last week's sessions before turning it on.

Usage:
  acp-proxy policy check --policy FILE TRACE...

Columns: the time in the session; where the decision binds (permission: a
session/request_permission; intercept and hook: a pre-tool checkpoint the agent
offers, ACP's Tool Interception or grok-build's hooks; fs/… and terminal/create:
a request the agent asks the client to carry out; unasked: a call the agent ran
without asking); the
policy's decision and its rule's line; the user's answer (the kind of option
chosen, "cancelled", or "-" where nobody was asked); what the call runs or
touches, and why the policy decided so. A * marks a row where the user decided
otherwise than the policy would have, or the agent ran without asking what the
policy would have denied.

Examples:
  acp-proxy policy check --policy docs/starter.policy testdata/traces/opencode-1.18-zed-5.jsonl
  acp-proxy policy check --policy ~/.config/acp.policy ~/acp-traces/*.jsonl.gz

Flags:
`

const policySynopsis = "acp-proxy policy check --policy FILE TRACE..."

// runPolicy is `acp-proxy policy check`.
func runPolicy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		args = []string{"check", "--help"}
	}
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintf(stderr, "acp-proxy policy: want the command check (usage: %s)\n", policySynopsis)
		return exitUsage
	}
	fs := pflag.NewFlagSet("acp-proxy policy check", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &filterset.Config{}
	addPolicyFlag(fs, cfg)
	if code := parseTraceFlags(fs, args[1:], policyUsage, policySynopsis, stdout, stderr); code >= 0 {
		return code
	}
	if cfg.Policy == nil || fs.NArg() == 0 {
		fmt.Fprintf(stderr, "acp-proxy policy check: want --policy FILE and at least one TRACE (usage: %s)\n", policySynopsis)
		return exitUsage
	}
	code := 0
	for i, name := range fs.Args() {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := checkTrace(cfg.Policy, name, stdout); err != nil {
			fmt.Fprintf(stderr, "acp-proxy policy check: %s: %v\n", name, err)
			code = 1
		}
	}
	return code
}

// checkRow is one line of the report: a decision, and the user's answer to the same request.
type checkRow struct {
	ev   policy.Event
	user string
}

// checkTrace replays the trace name through p, changing nothing, and writes what it decided.
func checkTrace(p *policy.Policy, name string, stdout io.Writer) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	var rows []checkRow
	open := map[string]int{} // a permission's row, by session and call, until the user answers
	collect := func(ev policy.Event) {
		key := ev.Session + "\x00" + ev.ToolCall
		if i, ok := open[key]; ok && ev.User != "" && ev.Where == "permission" {
			rows[i].user = ev.User
			delete(open, key)
			return
		}
		if ev.Where == "permission" {
			open[key] = len(rows)
		}
		rows = append(rows, checkRow{ev: ev, user: "-"})
	}
	newConn := func(int) trace.Connection {
		chain := filters.NewChain(capabilities.New(), &policy.Filter{Policy: p, DryRun: true, OnDecision: collect})
		return trace.Connection{Chain: chain}
	}
	if err := trace.Replay(context.Background(), trace.NewReader(trace.Decompress(f)), newConn); err != nil {
		return err
	}
	for _, i := range open {
		rows[i].user = "(no answer)"
	}
	return writeCheck(stdout, name, rows)
}

// writeCheck writes the rows of one trace as a table, and a line of totals.
func writeCheck(w io.Writer, name string, rows []checkRow) error {
	fmt.Fprintf(w, "%s: %d decisions\n", name, len(rows))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "time\twhere\tpolicy\tuser\twhat\twhy")
	counts := map[policy.Action]int{}
	differ := 0
	for _, r := range rows {
		d := r.ev.Decision
		counts[d.Action]++
		rule := d.Action.String()
		if d.Rule != nil {
			rule += fmt.Sprintf(" (line %d)", d.Rule.Line)
		}
		if disagrees(d.Action, r.user) || (r.ev.Where == "unasked" && (d.Action == policy.Deny || d.Action == policy.Stop)) {
			differ++
			rule += " *"
		}
		fmt.Fprintf(tw, "%.3fs\t%s\t%s\t%s\t%s\t%s\n", r.ev.Time.Sub(time.Time{}).Seconds(), r.ev.Where, rule, r.user,
			oneLine(r.ev.What, 60), oneLine(d.Why, 80))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "allow %d, deny %d, stop %d, ask %d; %d where the user or the agent decided otherwise (*)\n",
		counts[policy.Allow], counts[policy.Deny], counts[policy.Stop], counts[policy.Ask], differ)
	return err
}

// disagrees reports a decision the user's answer contradicts: the policy allows what the user
// rejected, or denies what the user allowed (or what ran without asking).
func disagrees(a policy.Action, user string) bool {
	switch a {
	case policy.Allow:
		return strings.HasPrefix(user, "reject") || user == "cancelled"
	case policy.Deny, policy.Stop:
		return strings.HasPrefix(user, "allow")
	}
	return false
}

// oneLine is s on one line, cut to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
