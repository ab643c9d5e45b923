package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Call is what the proxy knows of one tool call, or of one request the agent asks the client to
// carry out, as a policy reads it.
type Call struct {
	Agent string // the agent's name (initialize's agentInfo.name)
	Cwd   string // the session's directory, absolute: what relative rules are about
	Tool  Tool   // the tool a rule names for it; 0 for kinds no rule names (think, other…)
	// Script is a command line, run by a shell in Dir; Argv a command started without one
	// (terminal/create). Bash only.
	Script string
	Argv   []string
	Dir    string   // where the command starts; "" is Cwd
	Paths  []string // Edit, Read: the files it touches, absolute
	Host   string   // WebFetch: the host of its URL
	// Title is the call's title, for the audit only: never read as a command.
	Title string
	// Unknown says why what the call does is not known (no command in the request, a path that
	// is not absolute): a rule may deny it or ask, never allow it.
	Unknown string
}

// Decision is what a policy decided for a call.
type Decision struct {
	Action Action
	Rule   *Rule  // the rule that decided; nil when none did (Ask)
	Why    string // why, in words: what matched, or what could not be proven
}

// String is the decision as a note says it: `deny (line 3: deny Bash(git push:*)): git push origin`.
func (d Decision) String() string {
	if d.Rule == nil {
		return fmt.Sprintf("%s: %s", d.Action, d.Why)
	}
	return fmt.Sprintf("%s (line %d: %s): %s", d.Action, d.Rule.Line, d.Rule.Text, d.Why)
}

// Decide decides c: the strongest rule that may match among stop, deny and ask rules, in that
// order; otherwise allow when allow rules cover everything the call provably does; otherwise
// ask. A rule that applies to another agent is not read.
func (p *Policy) Decide(c Call) Decision {
	if c.Dir == "" {
		c.Dir = c.Cwd
	}
	var s *script
	if c.Tool == Bash && (c.Script != "" || c.Argv != nil) {
		// read even when something else is unknown (Unknown, say, with no session
		// directory): deny rules still see the commands; only allows need the rest
		sc := c.read()
		s = &sc
	}
	for _, act := range []Action{Stop, Deny, Ask} {
		for i := range p.Rules {
			r := &p.Rules[i]
			if r.Action != act || !r.appliesTo(c.Agent) {
				continue
			}
			if why, ok := r.mayMatch(c, s); ok {
				return Decision{Action: act, Rule: r, Why: why}
			}
		}
	}
	if s != nil {
		if r, arg := p.namedFile(c, s); r != nil {
			return Decision{Action: Ask, Rule: r, Why: "an argument names " + arg}
		}
	}
	return p.allow(c, s)
}

// namedFile is the first deny, ask or stop rule about files that an argument of a command of s
// names, read as a path: `cat .env` reads the file a Read(./.env) rule is about, though only the
// program knows whether an argument is a file. Such a command is asked, never allowed.
func (p *Policy) namedFile(c Call, s *script) (*Rule, string) {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Action == Allow || r.Any || (r.Tool != Edit && r.Tool != Read) || !r.appliesTo(c.Agent) {
			continue
		}
		for _, cmd := range s.cmds {
			for _, a := range cmd.argv[1:] {
				if a == "" || strings.HasPrefix(a, "-") {
					continue
				}
				if _, ok := r.matchPaths(cmd.paths(a), c.Cwd, ""); ok {
					return r, a
				}
			}
			for i := range cmd.inner {
				if r, a := p.namedFile(c, &cmd.inner[i]); r != nil {
					return r, a
				}
			}
		}
	}
	return nil, ""
}

// read reads the command of a Bash call, run in c.Dir ("/" when not known: then nothing is
// allowed, see Call.Unknown, and deny rules still see its commands).
func (c Call) read() script {
	dir := c.Dir
	if !filepath.IsAbs(dir) {
		dir = "/"
	}
	if c.Argv != nil {
		return readArgv(c.Argv, dir, 0)
	}
	return readScript(c.Script, dir, 0)
}

// mayMatch reports whether r may match c, and what matched: for deny, ask and stop rules,
// anything the call may do is enough.
func (r *Rule) mayMatch(c Call, s *script) (string, bool) {
	if r.Tool == Edit && s != nil {
		return r.matchPaths(s.allWrites(), c.Cwd, "writes ")
	}
	if r.Tool == Read && s != nil {
		return r.matchPaths(s.allReads(), c.Cwd, "reads ")
	}
	if r.Tool != c.Tool {
		return "", false
	}
	switch {
	case r.Any:
		return "every " + r.Tool.String() + " call", true
	case c.Tool == Bash && s != nil:
		return s.matchForms(r.command)
	case c.Tool == Edit || c.Tool == Read:
		return r.matchPaths(c.Paths, c.Cwd, "")
	case c.Tool == WebFetch:
		return c.Host, c.Host != "" && (c.Host == r.domain || strings.HasSuffix(c.Host, "."+r.domain))
	}
	return "", false
}

// matchPaths reports the first of paths r's pattern matches, as written or after symlinks.
func (r *Rule) matchPaths(paths []string, cwd, verb string) (string, bool) {
	pcwd := physical(cwd)
	for _, p := range paths {
		if r.Any || r.path.match(p, cwd, true) || r.path.match(physical(p), pcwd, true) {
			return verb + p, true
		}
	}
	return "", false
}

// matchForms reports the first command of s (in any of its forms) a Bash pattern names.
func (s *script) matchForms(p commandPattern) (string, bool) {
	for _, argv := range s.seen {
		if p.match(argv, true) {
			return strings.Join(argv, " "), true
		}
	}
	for _, c := range s.cmds {
		for _, argv := range c.forms {
			if p.match(argv, true) {
				return strings.Join(argv, " "), true
			}
		}
		for i := range c.inner {
			if why, ok := c.inner[i].matchForms(p); ok {
				return why, true
			}
		}
	}
	return "", false
}

// allWrites are the files s may write, its shells' scripts included.
func (s *script) allWrites() []string {
	var out []string
	for _, c := range s.cmds {
		out = append(out, c.writes...)
		for i := range c.inner {
			out = append(out, c.inner[i].allWrites()...)
		}
	}
	return out
}

// allReads are the files s's redirects read, its shells' scripts included.
func (s *script) allReads() []string {
	var out []string
	for _, c := range s.cmds {
		out = append(out, c.reads...)
		for i := range c.inner {
			out = append(out, c.inner[i].allReads()...)
		}
	}
	return out
}

// allow decides a call no stop, deny or ask rule matched: allow when allow rules provably cover
// all of it, otherwise ask, saying what is not covered.
func (p *Policy) allow(c Call, s *script) Decision {
	if c.Unknown != "" {
		return Decision{Action: Ask, Why: c.Unknown}
	}
	var r *Rule
	var why string
	switch {
	case c.Tool == Bash && s == nil:
		why = "no command"
	case c.Tool == Bash:
		r, why = p.allowScript(c, s)
	case c.Tool == Edit || c.Tool == Read:
		r, why = p.allowPaths(c)
	case c.Tool == WebFetch:
		r, why = p.allowHost(c)
	default:
		why = "no rule is about this kind of call"
	}
	if r == nil {
		return Decision{Action: Ask, Why: why}
	}
	return Decision{Action: Allow, Rule: r, Why: why}
}

// allowRules calls f with each allow rule for c's agent about tool, until f returns true.
func (p *Policy) allowRules(c Call, tool Tool, f func(r *Rule) bool) *Rule {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Action == Allow && r.Tool == tool && r.appliesTo(c.Agent) && f(r) {
			return r
		}
	}
	return nil
}

// allowPaths allows an Edit or Read call whose every file an allow rule covers, as written and
// after symlinks.
func (p *Policy) allowPaths(c Call) (*Rule, string) {
	if len(c.Paths) == 0 {
		return nil, "the call names no file"
	}
	var first *Rule
	for _, path := range c.Paths {
		r := p.allowedPath(c, c.Tool, path)
		if r == nil {
			return nil, "no allow rule covers " + relPath(path, c.Cwd)
		}
		if first == nil {
			first = r
		}
	}
	return first, describe(c)
}

// allowedPath is the allow rule about tool that covers path, as written and after symlinks.
func (p *Policy) allowedPath(c Call, tool Tool, path string) *Rule {
	pcwd := physical(c.Cwd)
	real := physical(path)
	return p.allowRules(c, tool, func(r *Rule) bool {
		return r.Any || (r.path.match(path, c.Cwd, false) && r.path.match(real, pcwd, false))
	})
}

// allowHost allows a fetch of a host an allow rule names.
func (p *Policy) allowHost(c Call) (*Rule, string) {
	r := p.allowRules(c, WebFetch, func(r *Rule) bool {
		return r.Any || (c.Host != "" && (c.Host == r.domain || strings.HasSuffix(c.Host, "."+r.domain)))
	})
	if r == nil {
		return nil, "no allow rule names " + c.Host
	}
	return r, c.Host
}

// relPath is p relative to cwd when inside it, for messages.
func relPath(p, cwd string) string {
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// allowScript allows a command line when every command it runs is allowed (allowCommand).
func (p *Policy) allowScript(c Call, s *script) (*Rule, string) {
	if s.unknown != "" {
		return nil, "the command line cannot be read exactly: " + s.unknown
	}
	if len(s.cmds) == 0 {
		return nil, "no command"
	}
	links := false
	for _, cmd := range s.cmds {
		links = links || filepath.Base(cmd.argv[0]) == "ln"
	}
	var first *Rule
	var done []string
	for i := range s.cmds {
		cmd := &s.cmds[i]
		if links && len(cmd.writes) > 0 && filepath.Base(cmd.argv[0]) != "ln" {
			return nil, "ln makes links that a write of the same command line may go through"
		}
		r, why := p.allowCommand(c, cmd)
		if why != "" {
			return nil, why
		}
		if first == nil {
			first = r
		}
		done = append(done, strings.Join(cmd.argv, " "))
	}
	if first == nil {
		return nil, "only cd"
	}
	return first, strings.Join(done, "; ")
}

// allowCommand is the allow rule that covers cmd, or why none does: the rule names it (an
// opaque command only by a rule naming its whole command line), it runs inside the session's
// directory, and every file it may write is inside it or allowed by an Edit rule. A shell's
// script (bash -c) is allowed when each of its commands is. cd needs no rule.
func (p *Policy) allowCommand(c Call, cmd *command) (r *Rule, why string) {
	pcwd := physical(c.Cwd)
	for _, d := range cmd.dirs {
		if !inside(d, c.Cwd) || !inside(physical(d), pcwd) {
			return nil, fmt.Sprintf("%s runs in %s, outside the session's directory", cmd.argv[0], d)
		}
	}
	for _, w := range cmd.writes {
		if !(inside(w, c.Cwd) && inside(physical(w), pcwd)) && p.allowedPath(c, Edit, w) == nil {
			return nil, fmt.Sprintf("%s writes %s, outside the session's directory, and no Edit rule allows it", cmd.argv[0], w)
		}
	}
	for _, d := range cmd.devs {
		if !harmlessDevs[d] {
			return nil, fmt.Sprintf("%s opens %s", cmd.argv[0], d)
		}
	}
	switch {
	case len(cmd.inner) > 0 && cmd.opaque == "":
		for i := range cmd.inner {
			if r, why = p.allowScript(c, &cmd.inner[i]); why != "" && r == nil {
				return nil, why
			}
		}
		return r, ""
	case cmd.opaque == "" && cmd.argv[0] == "cd":
		return nil, ""
	}
	r = p.allowRules(c, Bash, func(r *Rule) bool {
		if cmd.opaque != "" {
			return !r.Any && r.command.exact() && r.command.match(cmd.argv, false)
		}
		return r.Any || r.command.match(cmd.argv, false)
	})
	switch {
	case r == nil && cmd.opaque != "":
		return nil, fmt.Sprintf("%s: %s; only a rule naming this whole command allows it", strings.Join(cmd.argv, " "), cmd.opaque)
	case r == nil:
		return nil, "no allow rule names " + strings.Join(cmd.argv, " ")
	}
	return r, ""
}

// harmlessDevs are the devices a command may write to without a rule: nowhere, and the terminal.
var harmlessDevs = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/fd/1": true, "/dev/fd/2": true, "/dev/zero": true, "/dev/urandom": true, "/dev/random": true}
