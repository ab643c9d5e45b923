package shellcorpus

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// otherWriters are utilities that write the file named by an argument with
// bytes that do not follow from the command (another file's, a patch's).
var otherWriters = map[string]bool{
	"cp": true, "mv": true, "install": true, "truncate": true, "patch": true, "rsync": true,
}

// interpreters run code given on their command line or on standard input.
var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true,
}

// codeWrites matches interpreter code that opens a file for writing. It reads
// the code, not the shell: an approximation, used only to count such
// commands in the "other" row (they are never shown).
var codeWrites = regexp.MustCompile(`open\([^)]*['"][wax]b?\+?['"]|\.write_text\(|\.write_bytes\(|writeFileSync\(|fs\.writeFile\(|File\.write\(`)

// call adds what one simple command writes.
func (s *shape) call(script string, st *syntax.Stmt, c *syntax.CallExpr, nested bool) {
	name := nameOf(c)
	switch {
	case len(c.Args) == 0:
		s.extra = true // assignments only
	case name == "cd":
		for _, a := range operands(c.Args[1:]) {
			if d, ok := literalText(a); ok {
				s.cdDirs = append(s.cdDirs, d)
			}
		}
	case name == "mkdir":
		s.setup = true
	case knownOutput(c, st) && writesOutput(st):
		// the write itself: its redirect is added below
	case name == "touch":
		s.setup = true
		for _, a := range operands(c.Args[1:]) {
			s.add(kindTouch, script, a)
		}
	case name == "sed" && sedInPlace(c.Args[1:]):
		for _, a := range sedFiles(c.Args[1:]) {
			s.add(kindSedInPlace, script, a)
		}
	case name == "tee" && hasHeredoc(st):
		s.tee(script, c, true)
	case name == "tee":
		s.tee(script, c, false)
	case name == "patch":
		s.writes = append(s.writes, write{kind: kindOther, target: "(patch)"})
	case otherWriters[name] && len(operands(c.Args[1:])) > 1:
		ops := operands(c.Args[1:])
		s.add(kindOther, script, ops[len(ops)-1])
	case name == "dd" && ddOutput(c.Args[1:]) != nil:
		s.add(kindOther, script, ddOutput(c.Args[1:]))
	case name == "perl" && perlInPlace(c.Args[1:]):
		s.writes = append(s.writes, write{kind: kindOther, target: "(perl -i)"})
	case interpreters[name] && codeWrites.MatchString(script[c.Pos().Offset():stmtEnd(st)]):
		s.writes = append(s.writes, write{kind: kindOther, target: "(" + name + " code)"})
	default:
		s.extra = true
	}
	s.redirects(script, st, name)
}

// stmtEnd is where st ends in the script, here-document bodies included.
func stmtEnd(st *syntax.Stmt) uint {
	end := st.End().Offset()
	for _, r := range st.Redirs {
		if r.Hdoc != nil && r.Hdoc.End().Offset() > end {
			end = r.Hdoc.End().Offset()
		}
	}
	return end
}

// redirects adds the files st's output redirects write. name is the command
// whose output goes there ("" for none or a compound command).
func (s *shape) redirects(script string, st *syntax.Stmt, name string) {
	for _, r := range st.Redirs {
		k, ok := redirectKind(r, name, st)
		if !ok {
			continue
		}
		if strings.HasPrefix(r.Word.Lit(), "/dev/") {
			continue
		}
		s.add(k, script, r.Word)
	}
}

func redirectKind(r *syntax.Redirect, name string, st *syntax.Stmt) (kind, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.RdrClob, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
	default:
		return 0, false
	}
	stdout := r.N == nil || r.N.Value == "1"
	known := name == "echo" || name == "printf" || (name == "cat" && hasHeredoc(st) && !hasArgs(st))
	switch {
	case !stdout || !known || r.Op == syntax.RdrAll || r.Op == syntax.AppAll:
		return kindOther, true
	case r.Op == syntax.AppOut:
		return kindAppend, true
	}
	return kindOverwrite, true
}

// writesOutput reports whether st sends its standard output to a file.
func writesOutput(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if k, ok := redirectKind(r, "echo", st); ok && k != kindOther && !strings.HasPrefix(r.Word.Lit(), "/dev/") {
			return true
		}
	}
	return false
}

func hasArgs(st *syntax.Stmt) bool {
	c, ok := st.Cmd.(*syntax.CallExpr)
	return ok && len(c.Args) > 1
}

// tee adds tee's files: known bytes when fed by a here-document or by
// echo/printf, else bytes from elsewhere.
func (s *shape) tee(script string, c *syntax.CallExpr, known bool) {
	k := kindOther
	if known {
		k = kindOverwrite
	}
	var files []*syntax.Word
	for _, a := range c.Args[1:] {
		switch l := a.Lit(); {
		case l == "-a" || l == "--append":
			if known {
				k = kindAppend
			}
		case strings.HasPrefix(l, "-") && l != "-":
		default:
			files = append(files, a)
		}
	}
	for _, f := range files {
		s.add(k, script, f)
	}
}

func (s *shape) add(k kind, script string, w *syntax.Word) {
	path, _ := literalText(w)
	s.writes = append(s.writes, write{kind: k, target: script[w.Pos().Offset():w.End().Offset()], path: path})
}

// operands are the arguments that are not options (before a "--", options
// start with '-').
func operands(args []*syntax.Word) []*syntax.Word {
	var ops []*syntax.Word
	dashdash := false
	for _, a := range args {
		l := a.Lit()
		switch {
		case !dashdash && l == "--":
			dashdash = true
		case !dashdash && strings.HasPrefix(l, "-") && l != "-":
		default:
			ops = append(ops, a)
		}
	}
	return ops
}

func ddOutput(args []*syntax.Word) *syntax.Word {
	for _, a := range args {
		if strings.HasPrefix(a.Lit(), "of=") {
			return a
		}
	}
	return nil
}

func sedInPlace(args []*syntax.Word) bool {
	for _, a := range args {
		l := a.Lit()
		if l == "--in-place" || strings.HasPrefix(l, "--in-place=") ||
			(strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--") && strings.Contains(l, "i")) {
			return true
		}
	}
	return false
}

// sedFiles returns sed's file operands: the operands after the script, which
// is the first operand unless -e, -f or --expression gave it.
func sedFiles(args []*syntax.Word) []*syntax.Word {
	var ops []*syntax.Word
	scriptGiven := false
	for i := 0; i < len(args); i++ {
		l := args[i].Lit()
		switch {
		case l == "-e" || l == "-f" || l == "--expression" || l == "--file":
			scriptGiven = true
			i++
		case strings.HasPrefix(l, "--expression=") || strings.HasPrefix(l, "--file="):
			scriptGiven = true
		case strings.HasPrefix(l, "-") && len(l) > 1:
			if strings.HasSuffix(l, "e") && !strings.HasPrefix(l, "--") {
				scriptGiven = true
				i++
			}
		default:
			ops = append(ops, args[i])
		}
	}
	if !scriptGiven && len(ops) > 0 {
		ops = ops[1:]
	}
	return ops
}

func perlInPlace(args []*syntax.Word) bool {
	for _, a := range args {
		l := a.Lit()
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--") && strings.Contains(l, "i") {
			return true
		}
	}
	return false
}

// literalText is w's value when it is made of literal text and quotes only.
func literalText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
