package shellcorpus

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Form is how a command writes its files, as the rows of the benchmark's
// table. Each writing command has exactly one form; [Classify] gives the
// first that applies, in the order of the constants.
type Form int

const (
	FormNone       Form = iota // writes no file
	FormOther                  // a write whose bytes do not follow from the command
	FormSeveral                // writes two or more files
	FormSedInPlace             // sed -i on one file
	FormAppend                 // >> or tee -a to one file
	FormThenOther              // one overwrite among other commands (or inside a compound command)
	FormSetup                  // one overwrite or touch with mkdir, a comment or touch around it
	FormOverwrite              // one cat-heredoc, echo, printf (or tee) overwrite, after an optional cd
)

// Forms lists the writing forms in table order.
var Forms = []Form{FormOverwrite, FormSedInPlace, FormThenOther, FormAppend, FormSeveral, FormSetup, FormOther}

func (f Form) String() string {
	switch f {
	case FormNone:
		return "no write"
	case FormOther:
		return "other: cp, mv, a program's output, an interpreter writing"
	case FormSeveral:
		return "several files in one command"
	case FormSedInPlace:
		return "sed -i"
	case FormAppend:
		return "appends: >>, tee -a"
	case FormThenOther:
		return "a write, then other commands"
	case FormSetup:
		return "mkdir -p + write, # comment + write, touch"
	case FormOverwrite:
		return "single-file overwrite: cat <<EOF > f, echo > f, printf > f"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// kind is what one write does to its file.
type kind int

const (
	kindOverwrite kind = iota // known bytes replace the file
	kindAppend                // known bytes are appended
	kindSedInPlace
	kindTouch
	kindOther // the bytes come from elsewhere: a program, another file
)

// write is one file a command writes.
type write struct {
	kind   kind
	target string // the target word as written in the script
	path   string // its value when literal, else ""
}

// shape is what Classify found in a script.
type shape struct {
	writes []write
	extra  bool     // a command that is not a write, cd, mkdir or touch, or a compound command
	setup  bool     // mkdir, touch or a comment
	cdDirs []string // the literal directories of cd commands
}

// Classify parses script as bash and returns its form. An error means bash
// would not parse it either (as far as mvdan.cc/sh can tell).
func Classify(script string) (Form, error) {
	s, err := shapeOf(script)
	if err != nil {
		return FormNone, err
	}
	return s.form(), nil
}

func (s shape) form() Form {
	if len(s.writes) == 0 {
		return FormNone
	}
	targets := map[string]bool{}
	has := map[kind]bool{}
	for _, w := range s.writes {
		targets[w.target] = true
		has[w.kind] = true
	}
	switch {
	case has[kindOther]:
		return FormOther
	case len(targets) > 1:
		return FormSeveral
	case has[kindSedInPlace]:
		return FormSedInPlace
	case has[kindAppend]:
		return FormAppend
	case s.extra:
		return FormThenOther
	case s.setup || has[kindTouch]:
		return FormSetup
	}
	return FormOverwrite
}

func shapeOf(script string) (shape, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	f, err := p.Parse(strings.NewReader(script), "")
	if err != nil {
		return shape{}, fmt.Errorf("parse: %w", err)
	}
	var s shape
	syntax.Walk(f, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.Comment); ok {
			s.setup = true
		}
		return true
	})
	for _, st := range f.Stmts {
		s.statement(script, st, false)
	}
	return s, nil
}

// statement adds what st writes. nested: st runs inside a compound command,
// a pipeline or a function, so whether it runs depends on more than the
// command list.
func (s *shape) statement(script string, st *syntax.Stmt, nested bool) {
	if nested {
		s.extra = true
	}
	switch c := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.AndStmt || c.Op == syntax.OrStmt {
			s.statement(script, c.X, nested || c.Op == syntax.OrStmt)
			s.statement(script, c.Y, nested || c.Op == syntax.OrStmt)
			s.redirects(script, st, "")
			return
		}
		s.pipeline(script, st, c)
		return
	case *syntax.CallExpr:
		s.call(script, st, c, nested)
		return
	case nil:
		s.redirects(script, st, "")
		return
	}
	s.extra = true
	s.redirects(script, st, "")
	syntax.Walk(st.Cmd, func(n syntax.Node) bool {
		if inner, ok := n.(*syntax.Stmt); ok {
			s.statement(script, inner, true)
			return false
		}
		return true
	})
}

// pipeline adds a pipe's writes: `echo … | tee f` and `printf … | tee -a f`
// write known bytes; anything else piped into tee does not.
func (s *shape) pipeline(script string, st *syntax.Stmt, c *syntax.BinaryCmd) {
	s.redirects(script, st, "")
	left, lok := c.X.Cmd.(*syntax.CallExpr)
	right, rok := c.Y.Cmd.(*syntax.CallExpr)
	if c.Op == syntax.Pipe && lok && rok && nameOf(right) == "tee" && knownOutput(left, c.X) && len(c.X.Redirs) == 0 {
		s.tee(script, right, true)
		s.redirects(script, c.Y, "tee")
		return
	}
	s.statement(script, c.X, true)
	s.statement(script, c.Y, true)
}

// knownOutput reports whether call prints bytes that follow from the
// command itself: echo, printf, or cat of a here-document.
func knownOutput(call *syntax.CallExpr, st *syntax.Stmt) bool {
	switch nameOf(call) {
	case "echo", "printf":
		return true
	case "cat":
		return len(call.Args) == 1 && hasHeredoc(st)
	}
	return false
}

func hasHeredoc(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
			return true
		}
	}
	return false
}

func nameOf(call *syntax.CallExpr) string {
	if len(call.Args) == 0 {
		return ""
	}
	return call.Args[0].Lit()
}
