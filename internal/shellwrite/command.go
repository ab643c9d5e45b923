package shellwrite

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// command is the one shape of script that Parse accepts: an optional `cd DIR &&`, then a simple
// command with one output redirect and at most one here-document.
type command struct {
	cdDir   *syntax.Word     // nil without a cd
	call    *syntax.CallExpr // Args[0] is the command name: cat, echo or printf
	output  *syntax.Redirect // > >| 1>
	heredoc *syntax.Redirect // << <<-, or nil
	lineEnd int              // offset of the line after the command line: a here-document's body
	appends bool             // a '>>' may be the output redirect
}

// recognisedNames are the commands whose output Parse can compute. Names must be unquoted and
// unescaped: "cat" and \cat are cat too, but nothing is gained by proving it.
var recognisedNames = map[string]bool{"cat": true, "echo": true, "printf": true}

// splitCommand finds the command in file, parsed from script, or says why the script has
// another shape.
func splitCommand(script string, file *syntax.File) (command, error) {
	if len(file.Stmts) != 1 {
		return command{}, fmt.Errorf("%d statements, want 1", len(file.Stmts))
	}
	stmt := file.Stmts[0]
	var cmd command
	if bin, ok := stmt.Cmd.(*syntax.BinaryCmd); ok {
		if err := checkPlainStmt(stmt, false); err != nil {
			return command{}, err
		}
		if bin.Op != syntax.AndStmt {
			return command{}, fmt.Errorf("operator %s", bin.Op)
		}
		if err := checkOperator(script, bin.OpPos, bin.Op.String()); err != nil {
			return command{}, err
		}
		dir, err := cdDir(script, bin.X)
		if err != nil {
			return command{}, err
		}
		cmd.cdDir = dir
		stmt = bin.Y
	}
	if err := checkPlainStmt(stmt, true); err != nil {
		return command{}, err
	}
	call, ok := stmt.Cmd.(*syntax.CallExpr)
	if stmt.Cmd == nil {
		return command{}, errors.New("redirect without a command")
	}
	if !ok {
		return command{}, fmt.Errorf("%T is not a simple command", stmt.Cmd)
	}
	if len(call.Assigns) > 0 || len(call.Args) == 0 {
		return command{}, errors.New("variable assignment")
	}
	if name := sourceOf(script, call.Args[0]); !recognisedNames[name] {
		return command{}, fmt.Errorf("command %q is not cat, echo or printf", name)
	}
	cmd.call = call
	if err := cmd.setRedirects(script, stmt.Redirs); err != nil {
		return command{}, err
	}
	return cmd, cmd.checkSurroundings(script, int(file.Stmts[0].Pos().Offset()))
}

// checkPlainStmt rejects `! stmt`, `stmt &`, `stmt;` and the like, and redirects unless allowed.
func checkPlainStmt(s *syntax.Stmt, redirects bool) error {
	switch {
	case s.Negated:
		return errors.New("negated command")
	case s.Background, s.Coprocess, s.Disown:
		return errors.New("background command")
	case s.Semicolon.IsValid():
		return errors.New("command terminated by ';' or '&'")
	case !redirects && len(s.Redirs) > 0:
		return errors.New("redirect on a compound command or cd")
	}
	return nil
}

// cdDir returns the directory word of the `cd DIR` statement s.
func cdDir(script string, s *syntax.Stmt) (*syntax.Word, error) {
	if err := checkPlainStmt(s, false); err != nil {
		return nil, fmt.Errorf("before &&: %w", err)
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) == 0 || sourceOf(script, call.Args[0]) != "cd" {
		return nil, errors.New("before &&: not a cd")
	}
	if len(call.Args) != 2 {
		return nil, fmt.Errorf("cd with %d arguments, want 1", len(call.Args)-1)
	}
	return call.Args[1], nil
}

// setRedirects accepts exactly one output redirect ('>>' only if c.appends) and at most one
// here-document, all on the standard file descriptors.
func (c *command) setRedirects(script string, redirs []*syntax.Redirect) error {
	for _, r := range redirs {
		if err := checkRedirectOperator(script, r); err != nil {
			return err
		}
		if r.Op == syntax.AppOut && !c.appends {
			return fmt.Errorf("redirect %s", r.Op)
		}
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.AppOut:
			if r.N != nil && r.N.Value != "1" {
				return fmt.Errorf("redirect of fd %s", r.N.Value)
			}
			if c.output != nil {
				return errors.New("more than one output redirect")
			}
			c.output = r
		case syntax.Hdoc, syntax.DashHdoc:
			if r.N != nil {
				return fmt.Errorf("here-document on fd %s", r.N.Value)
			}
			if c.heredoc != nil {
				return errors.New("more than one here-document")
			}
			c.heredoc = r
		default:
			return fmt.Errorf("redirect %s", r.Op)
		}
	}
	if c.output == nil {
		return errors.New("no output redirect")
	}
	return nil
}

// checkRedirectOperator requires r's operator, with its file descriptor number, to be written
// without a line continuation inside: zsh reads `echo hi 1\<newline>> f` as `echo hi 1 > f` and
// `>\<newline>| f` as a syntax error, where bash and dash join the lines first.
func checkRedirectOperator(script string, r *syntax.Redirect) error {
	if r.N != nil && (sourceOf(script, r.N) != r.N.Value || r.N.End().Offset() != r.OpPos.Offset()) {
		return errors.New("line continuation between a file descriptor and its redirect")
	}
	return checkOperator(script, r.OpPos, r.Op.String())
}

// checkOperator requires the operator op at pos to be spelled out in script, without a line
// continuation inside (zsh does not join `&\<newline>&`).
func checkOperator(script string, pos syntax.Pos, op string) error {
	start := int(pos.Offset())
	if !strings.HasPrefix(script[start:], op) {
		return fmt.Errorf("operator %s split by a line continuation", op)
	}
	return nil
}

// checkSurroundings requires blanks before the statement (which starts at offset start) and after
// the command line, and sets lineEnd. A here-document's body follows that line.
func (c *command) checkSurroundings(script string, start int) error {
	last := 0
	for _, w := range c.words() {
		last = max(last, int(w.End().Offset()))
	}
	if strings.Trim(script[:start], " \t\n") != "" {
		return errors.New("text before the command")
	}
	rest := script[last:]
	if c.heredoc == nil {
		if strings.Trim(rest, " \t\n") != "" {
			return errors.New("text after the command")
		}
		c.lineEnd = len(script)
		return nil
	}
	eol := strings.IndexByte(rest, '\n')
	if eol < 0 || strings.Trim(rest[:eol], " \t") != "" {
		return errors.New("text after the command line")
	}
	c.lineEnd = last + eol + 1
	return nil
}

// words returns the words of the command line that Parse reads: cd's directory, the command's
// and the redirects'.
func (c *command) words() []*syntax.Word {
	var words []*syntax.Word
	if c.cdDir != nil {
		words = append(words, c.cdDir)
	}
	words = append(words, c.call.Args...)
	words = append(words, c.output.Word)
	if c.heredoc != nil {
		words = append(words, c.heredoc.Word)
	}
	return words
}
