package policy

import (
	"fmt"
	"path/filepath"
	"strings"
)

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
		if c.Tool == Edit && otherLinks(physical(path)) {
			return nil, relPath(path, c.Cwd) + " has other hard links: the same file elsewhere"
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
		if otherLinks(physical(w)) {
			return nil, fmt.Sprintf("%s writes %s, which has other hard links: the same file elsewhere", cmd.argv[0], w)
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
		// where it leads, later commands run: checked on them, and here for the last one, which
		// leaves a persistent shell (claude's) there
		for _, dest := range cmd.paths(cmd.argv[len(cmd.argv)-1]) {
			if !inside(dest, c.Cwd) || !inside(physical(dest), pcwd) {
				return nil, "cd leaves the session's directory for " + dest
			}
		}
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
