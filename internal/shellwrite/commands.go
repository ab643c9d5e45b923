package shellwrite

import (
	"errors"
	"fmt"
	"path/filepath"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command a script runs, as bash, dash and zsh all run it: every word is
// literal after quote removal (`g\it`, "git" and 'git' are all git), so Argv is exactly the
// program and arguments the shell starts.
type Command struct {
	Argv   []string
	Redirs []Redirect
	// Dirs are the directories the command may run in: the script's cwd, and where each cd
	// before it leads (a cd that fails leaves the shell where it was, so each is possible).
	Dirs []string
}

// Redirect is one redirect of a Command, with its literal target.
type Redirect struct {
	Op     string // as written: ">", ">>", ">|", "&>", "&>>", "<", "<>", ">&", "<&", "<<", "<<-", "<<<"
	Fd     string // the file descriptor before Op ("2" in 2>f), "" when none
	Target string // a path; a descriptor for >& and <&; the text for <<<; "" for a here-document
}

// Writes reports whether the redirect opens its Target for writing (a file, not a descriptor).
func (r Redirect) Writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		return !isDescriptor(r.Target)
	}
	return false
}

// Reads reports whether the redirect opens its Target for reading as a file.
func (r Redirect) Reads() bool {
	return r.Op == "<" || r.Op == "<>" || (r.Op == "<&" && !isDescriptor(r.Target))
}

// isDescriptor reports a >& or <& target that names a descriptor (or closes one) rather than a file.
func isDescriptor(t string) bool {
	if t == "-" {
		return true
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return t != ""
}

// Commands lists every simple command script runs in the absolute directory cwd, in the order
// they appear, or says why it cannot: the script does not parse alike as bash, POSIX sh and
// zsh; a word of it expands ($VAR, $(…), `…`, globs, braces, ~, $'…'); it holds a compound
// command other than ( … ), { …; } and `time` (if, loops, case, functions, [[ … ]], (( … )),
// declarations), a variable assignment, a coprocess, a here-document whose body expands, or a
// cd whose destination is not a literal directory reached without $CDPATH.
//
// Lists, pipelines, negation and background jobs are fine: every command they join is listed,
// so a reader that accepts each accepts all. What a listed command does is its reader's
// business: Commands says what runs, not what that program does with its arguments.
func Commands(script, cwd string) ([]Command, error) {
	if err := checkScriptSize(script); err != nil {
		return nil, fmt.Errorf("shellwrite: %w", err)
	}
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("shellwrite: cwd %q is not absolute", cwd)
	}
	file, err := parseEveryShell(script)
	if err != nil {
		return nil, fmt.Errorf("shellwrite: %w", err)
	}
	l := commandLister{src: script, dirs: []string{filepath.Clean(cwd)}}
	for _, stmt := range file.Stmts {
		if err := l.stmt(stmt); err != nil {
			return nil, fmt.Errorf("shellwrite: %w", err)
		}
	}
	return l.cmds, nil
}

// commandLister collects a script's commands.
type commandLister struct {
	src  string
	dirs []string // every directory a command may run in so far
	cmds []Command
}

func (l *commandLister) stmt(s *syntax.Stmt) error {
	if s.Coprocess {
		return errors.New("coprocess")
	}
	switch cmd := s.Cmd.(type) {
	case nil:
		return errors.New("redirect without a command")
	case *syntax.CallExpr:
		return l.call(s, cmd)
	case *syntax.BinaryCmd:
		if err := l.noRedirects(s); err != nil {
			return err
		}
		if err := l.stmt(cmd.X); err != nil {
			return err
		}
		return l.stmt(cmd.Y)
	case *syntax.Subshell:
		return l.stmts(s, cmd.Stmts)
	case *syntax.Block:
		return l.stmts(s, cmd.Stmts)
	case *syntax.TimeClause:
		if cmd.Stmt == nil {
			return errors.New("time without a command")
		}
		return l.stmts(s, []*syntax.Stmt{cmd.Stmt})
	}
	return fmt.Errorf("%s: not a simple command", commandKind(s.Cmd))
}

// stmts lists the statements of a group; its redirects apply to all of them, and are asked
// about as the group's (the group is not a command they are listed on).
func (l *commandLister) stmts(s *syntax.Stmt, stmts []*syntax.Stmt) error {
	if err := l.noRedirects(s); err != nil {
		return err
	}
	for _, inner := range stmts {
		if err := l.stmt(inner); err != nil {
			return err
		}
	}
	return nil
}

// noRedirects refuses redirects on a group or list: they would be lost on its commands.
func (l *commandLister) noRedirects(s *syntax.Stmt) error {
	if len(s.Redirs) > 0 {
		return errors.New("redirect on a compound command")
	}
	return nil
}

// commandKind names a compound command for an error.
func commandKind(c syntax.Command) string {
	switch c.(type) {
	case *syntax.IfClause:
		return "if"
	case *syntax.WhileClause:
		return "while/until loop"
	case *syntax.ForClause:
		return "for loop"
	case *syntax.CaseClause:
		return "case"
	case *syntax.FuncDecl:
		return "function definition"
	case *syntax.DeclClause:
		return "declaration (export, local, declare, readonly)"
	case *syntax.TestClause:
		return "[[ … ]]"
	case *syntax.ArithmCmd:
		return "(( … ))"
	case *syntax.LetClause:
		return "let"
	case *syntax.CoprocClause:
		return "coprocess"
	}
	return fmt.Sprintf("%T", c)
}

// call lists one simple command.
func (l *commandLister) call(s *syntax.Stmt, call *syntax.CallExpr) error {
	if len(call.Assigns) > 0 {
		return errors.New("variable assignment")
	}
	if len(call.Args) == 0 {
		return errors.New("no command")
	}
	c := Command{Dirs: append([]string(nil), l.dirs...)}
	for i, w := range call.Args {
		a, err := literal(l.src, w)
		if err != nil {
			if i == 0 {
				return fmt.Errorf("command name: %w", err)
			}
			return fmt.Errorf("%s: argument %d: %w", c.Argv[0], i, err)
		}
		c.Argv = append(c.Argv, a)
	}
	for _, r := range s.Redirs {
		rd, err := l.redirect(r)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Argv[0], err)
		}
		c.Redirs = append(c.Redirs, rd)
	}
	l.cmds = append(l.cmds, c)
	if c.Argv[0] == "cd" {
		return l.cd(c.Argv[1:])
	}
	return nil
}

// cd adds where `cd ARGS` leads from each directory so far.
func (l *commandLister) cd(args []string) error {
	if len(args) != 1 || args[0] == "" {
		return errors.New("cd without exactly one directory")
	}
	if searchesCDPATH(args[0]) {
		return fmt.Errorf("cd %s: $CDPATH may lead elsewhere (./%s would not)", args[0], args[0])
	}
	for _, from := range l.dirs {
		dir, _, err := cdDestination(from, args[0])
		if err != nil {
			return fmt.Errorf("cd: %w", err)
		}
		if !containsString(l.dirs, dir) {
			l.dirs = append(l.dirs, dir)
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// redirect reads one redirect; a here-document's body must not expand.
func (l *commandLister) redirect(r *syntax.Redirect) (Redirect, error) {
	if err := checkRedirectOperator(l.src, r); err != nil {
		return Redirect{}, err
	}
	rd := Redirect{Op: r.Op.String()}
	if r.N != nil {
		rd.Fd = r.N.Value
	}
	if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
		start, err := heredocStart(l.src, r)
		if err != nil {
			return Redirect{}, err
		}
		if _, err := readHeredoc(l.src, start, r); err != nil {
			return Redirect{}, err
		}
		return rd, nil
	}
	target, err := literal(l.src, r.Word)
	if err != nil {
		return Redirect{}, fmt.Errorf("redirect %s: %w", rd.Op, err)
	}
	rd.Target = target
	return rd, nil
}
