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
