package shellwrite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Op is what a Write does to its file.
type Op int

const (
	Overwrite   Op = iota // > >| 1>, tee: the file is truncated and Content written
	Append                // >>, tee -a: Content is added at the end; a missing file is created
	EditInPlace           // sed -i: the file becomes GNU sed's output for it
	Touch                 // touch: an empty file is created where there is none; nothing else
	MakeDirs              // mkdir -p: Path and its parents become directories; nothing to show
	MakeDir               // mkdir: Path, which must not exist, becomes a directory; nothing to show
)

// Script is what a whole script surely does to files: the writes of its statements up to the
// first one whose effect or success the proxy cannot know.
//
// A script is a list of statements joined by newlines, ';' and '&&', with comments on lines of
// their own. A statement is known when it is `cd DIR`, `mkdir [-p] DIR…`, `touch FILE…`, a write
// by cat with a here-document, echo or printf with '>' or '>>', `tee [-a] FILE…` fed by a
// here-document, or `sed -i` (see [Script.Edits]), all with literal words only. Reading stops at
// the first other statement, for whatever separator follows it: an unknown command may never
// end (a server the agent kills on a timeout), may end the shell (exit, exec, kill, errexit set by
// a login file), may change what later statements mean (a function, an alias, PATH, cd, umask) or
// what they start from (it may write the file a later '>>' or `sed -i` extends). Reading also
// stops at '||', a pipeline, a background job and any compound command (if, loops, functions,
// subshells, groups): whether and how often what follows runs depends on what came before.
type Script struct {
	// Writes are what the known statements do, in the order they do it. Several Writes come from
	// one statement when it names several files.
	Writes []Write
	// Unknown is the first statement the proxy cannot vouch for, and why; nil when every
	// statement is known. The script then runs more than Writes say: the command stays visible.
	Unknown error

	cwd      string
	cdArg    string // every cd so far, composed into one argument (see composeCd); "" without
	cdPATH   bool   // a cd whose argument $CDPATH may resolve
	relative bool   // a write or cd whose meaning depends on cwd
	groups   int
}

// ParseScript reads script, run in the absolute directory cwd, as [Script] describes. An error
// means nothing can be said about the script: it does not parse the same way as bash, POSIX sh
// and zsh, is too long, or holds a comment after a command or a character shells read
// differently.
func ParseScript(script, cwd string) (Script, error) { return named(parseScript(script, cwd)) }

func parseScript(script, cwd string) (Script, error) {
	if err := checkScriptSize(script); err != nil {
		return Script{}, err
	}
	if !filepath.IsAbs(cwd) {
		return Script{}, fmt.Errorf("cwd %q is not absolute", cwd)
	}
	file, err := parseEveryShell(script)
	if err != nil {
		return Script{}, err
	}
	r := scriptReader{src: script, s: Script{cwd: filepath.Clean(cwd)}}
	for _, stmt := range file.Stmts {
		if err := r.topLevel(stmt); err != nil {
			r.s.Unknown = err
			break
		}
	}
	return r.s, nil
}

// parseEveryShell parses script as bash, keeping comments, and requires that POSIX sh (dash) and
// zsh parse it too: zsh parses the whole of `zsh -c SCRIPT` before it runs any of it, dash each
// line before it runs the line, so a syntax error that bash alone accepts would stop writes that
// come before it. Comments must stand on lines of their own.
func parseEveryShell(script string) (*syntax.File, error) {
	if err := checkText(script); err != nil {
		return nil, err
	}
	var file *syntax.File
	for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX, syntax.LangZsh} {
		f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(script), "")
		if err != nil {
			return nil, fmt.Errorf("parse as %s: %w", lang, err)
		}
		if file == nil {
			file = f
		}
	}
	var err error
	syntax.Walk(file, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && err == nil {
			err = checkCommentLine(script, int(c.Pos().Offset()))
		}
		return err == nil
	})
	return file, err
}

// checkCommentLine requires the comment at offset start of script to begin its line.
func checkCommentLine(script string, start int) error {
	lineStart := strings.LastIndexByte(script[:start], '\n') + 1
	if strings.Trim(script[lineStart:start], " \t") != "" {
		return errors.New("comment after a command")
	}
	return nil
}

// scriptReader reads a script's statements in order into s.
type scriptReader struct {
	src string
	s   Script
}

// topLevel reads one statement of the script's list, or says why it is not known.
func (r *scriptReader) topLevel(stmt *syntax.Stmt) error {
	if err := checkListStmt(r.src, stmt); err != nil {
		return err
	}
	bin, ok := stmt.Cmd.(*syntax.BinaryCmd)
	if !ok {
		return r.statement(stmt)
	}
	if len(stmt.Redirs) > 0 {
		return errors.New("redirect on a list")
	}
	switch bin.Op {
	case syntax.AndStmt:
		if err := checkOperator(r.src, bin.OpPos, bin.Op.String()); err != nil {
			return err
		}
		if err := r.topLevel(bin.X); err != nil {
			return err
		}
		return r.topLevel(bin.Y)
	case syntax.OrStmt:
		if err := r.topLevel(bin.X); err != nil {
			return err
		}
		return errors.New("|| runs what follows only if a command fails")
	}
	return fmt.Errorf("pipeline %s", bin.Op)
}

// checkListStmt rejects `! stmt`, `stmt &` and the like; a ';' is fine.
func checkListStmt(src string, s *syntax.Stmt) error {
	switch {
	case s.Negated:
		return errors.New("negated command")
	case s.Background, s.Coprocess, s.Disown:
		return errors.New("background command")
	case s.Semicolon.IsValid() && !strings.HasPrefix(src[s.Semicolon.Offset():], ";"):
		return errors.New("command terminated by other than ';'")
	}
	return nil
}

// statement reads one simple command.
func (r *scriptReader) statement(stmt *syntax.Stmt) error {
	call, ok := stmt.Cmd.(*syntax.CallExpr)
	switch {
	case stmt.Cmd == nil:
		return errors.New("redirect without a command")
	case !ok:
		return fmt.Errorf("%T is not a simple command", stmt.Cmd)
	case len(call.Assigns) > 0 || len(call.Args) == 0:
		return errors.New("variable assignment")
	}
	name := sourceOf(r.src, call.Args[0])
	read, ok := statementReaders[name]
	if !ok {
		return fmt.Errorf("command %q is not known", name)
	}
	writes, err := read(r, stmt, call)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for i := range writes {
		writes[i].group = r.s.groups
		if writes[i].DependsOnCwd() {
			r.s.relative = true
		}
	}
	r.s.groups++
	r.s.Writes = append(r.s.Writes, writes...)
	return nil
}

// statementReaders read the statements a Script knows, by command name (unquoted: "cat" and \cat
// are cat too, but nothing is gained by proving it).
var statementReaders map[string]func(r *scriptReader, stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error)

func init() {
	statementReaders = map[string]func(*scriptReader, *syntax.Stmt, *syntax.CallExpr) ([]Write, error){
		"cd": (*scriptReader).cd, "mkdir": (*scriptReader).mkdir, "touch": (*scriptReader).touch,
		"cat": (*scriptReader).write, "echo": (*scriptReader).write, "printf": (*scriptReader).write,
		"tee": (*scriptReader).tee, "sed": (*scriptReader).sed,
	}
}

// args returns the literal values of call's arguments after the command name.
func (r *scriptReader) args(call *syntax.CallExpr) ([]string, error) {
	args := make([]string, 0, len(call.Args)-1)
	for i, w := range call.Args[1:] {
		a, err := literal(r.src, w)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		args = append(args, a)
	}
	return args, nil
}

// place returns where a file named target opens after the cds so far.
func (r *scriptReader) place(target string) (place, error) {
	return targetPlace(r.s.cwd, r.s.cdArg, target)
}

// DependsOnCwd reports whether what the shown writes do depends on the directory the script starts
// in: a relative cd before them, or a relative target without an absolute cd.
func (s Script) DependsOnCwd() bool { return s.relative }

// SearchesCDPATH reports whether a cd of the script looks its argument up in $CDPATH (see
// [Write.SearchesCDPATH]).
func (s Script) SearchesCDPATH() bool { return s.cdPATH }

// Dir returns the directory the shell is in after the script (absolute, clean, as a logical cd
// computes it), and whether that is known: every statement is known. An agent whose shell persists
// is left there.
func (s Script) Dir() (dir string, known bool) {
	if s.Unknown != nil {
		return "", false
	}
	if s.cdArg == "" {
		return s.cwd, true
	}
	dir, _, err := cdDestination(s.cwd, s.cdArg)
	return dir, err == nil
}

// Cds reports whether a known statement of the script changes the shell's directory.
func (s Script) Cds() bool { return s.cdArg != "" }
