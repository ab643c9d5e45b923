package shellwrite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The statements a Script knows, one reader each: what the statement writes, or why it is not
// known. Every word must be literal (see literal).

// cd changes the directory the statements after it run in. The shells' cds are composed into one
// argument, so that cdDestination's rules (a logical cd, no climbing above the start) hold for
// the whole sequence.
func (r *scriptReader) cd(stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error) {
	if len(stmt.Redirs) > 0 {
		return nil, errors.New("redirect on cd")
	}
	args, err := r.args(call)
	if err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, fmt.Errorf("%d arguments, want 1", len(args))
	}
	arg := args[0]
	if arg == "" {
		// `cd ''` means different things to different shells and POSIX versions.
		return nil, errors.New("empty directory")
	}
	if err := checkPathWord(arg); err != nil {
		return nil, err
	}
	composed := composeCd(r.s.cdArg, arg)
	if _, _, err := cdDestination(r.s.cwd, composed); err != nil {
		return nil, err
	}
	r.s.cdArg = composed
	r.s.cdPATH = r.s.cdPATH || searchesCDPATH(arg)
	r.s.relative = r.s.relative || !filepath.IsAbs(composed)
	return nil, nil
}

// composeCd returns the one argument that `cd prev; cd arg` amounts to, for a logical cd.
func composeCd(prev, arg string) string {
	if prev == "" || filepath.IsAbs(arg) {
		return arg
	}
	return prev + "/" + arg
}

// mkdir reads `mkdir [-p] DIR…`. A DIR with '..' is refused: mkdir resolves it after symlinks.
func (r *scriptReader) mkdir(stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error) {
	dirs, err := r.plainArgs(stmt, call)
	if err != nil {
		return nil, err
	}
	op := MakeDir
	if len(dirs) > 0 && dirs[0] == "-p" {
		op, dirs = MakeDirs, dirs[1:]
	}
	if len(dirs) == 0 {
		return nil, errors.New("no directory")
	}
	var writes []Write
	for _, d := range dirs {
		if strings.HasPrefix(d, "-") {
			return nil, fmt.Errorf("%q looks like an option", d)
		}
		if trimmed := strings.TrimRight(d, "/"); trimmed != "" {
			d = trimmed
		}
		if hasDotDot(d) {
			return nil, fmt.Errorf("directory %q has a '..'", d)
		}
		p, err := r.place(d)
		if err != nil {
			return nil, err
		}
		writes = append(writes, Write{Op: op, Path: p.lexical(), place: p})
	}
	return writes, nil
}

// touch reads `touch FILE…`, without options.
func (r *scriptReader) touch(stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error) {
	files, err := r.plainArgs(stmt, call)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("no file")
	}
	return r.fileWrites(files, Touch, nil)
}

// plainArgs returns the arguments of a command that must have no redirects.
func (r *scriptReader) plainArgs(stmt *syntax.Stmt, call *syntax.CallExpr) ([]string, error) {
	if len(stmt.Redirs) > 0 {
		return nil, errors.New("redirect")
	}
	return r.args(call)
}

// fileWrites returns one Write of op and content per file, refusing names that look like options.
func (r *scriptReader) fileWrites(files []string, op Op, content []byte) ([]Write, error) {
	var writes []Write
	for _, f := range files {
		if strings.HasPrefix(f, "-") {
			return nil, fmt.Errorf("%q looks like an option", f)
		}
		p, err := r.place(f)
		if err != nil {
			return nil, err
		}
		writes = append(writes, Write{Op: op, Path: p.lexical(), Content: content, place: p})
	}
	return writes, nil
}

// write reads cat with a here-document, echo or printf, with one output redirect '>' or '>>'.
func (r *scriptReader) write(stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error) {
	c := command{call: call, appends: true}
	if err := c.setRedirects(r.src, stmt.Redirs); err != nil {
		return nil, err
	}
	doc, err := r.heredoc(c.heredoc)
	if err != nil {
		return nil, err
	}
	content, err := callOutput(r.src, call, doc)
	if err != nil {
		return nil, err
	}
	target, err := literal(r.src, c.output.Word)
	if err != nil {
		return nil, fmt.Errorf("redirect target: %w", err)
	}
	op := Overwrite
	if c.output.Op == syntax.AppOut {
		op = Append
	}
	return r.fileWrites([]string{target}, op, content)
}

// heredoc reads the here-document of redirect h, or returns nil for a nil h.
func (r *scriptReader) heredoc(h *syntax.Redirect) (*heredoc, error) {
	if h == nil {
		return nil, nil
	}
	start, err := heredocStart(r.src, h)
	if err != nil {
		return nil, err
	}
	doc, err := readHeredoc(r.src, start, h)
	if err != nil {
		return nil, err
	}
	return &doc, nil
}

// tee reads `tee [-a] FILE… <<DOC`, optionally with its copy on standard output sent to /dev/null.
func (r *scriptReader) tee(stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error) {
	var h *syntax.Redirect
	for _, rd := range stmt.Redirs {
		if err := checkRedirectOperator(r.src, rd); err != nil {
			return nil, err
		}
		switch {
		case (rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc) && rd.N == nil && h == nil:
			h = rd
		case (rd.Op == syntax.RdrOut || rd.Op == syntax.RdrClob) && (rd.N == nil || rd.N.Value == "1") && r.isDevNull(rd.Word):
		default:
			return nil, fmt.Errorf("redirect %s (only a here-document and >/dev/null are known)", rd.Op)
		}
	}
	if h == nil {
		return nil, errors.New("no here-document: tee would read the agent's standard input")
	}
	args, err := r.args(call)
	if err != nil {
		return nil, err
	}
	op := Overwrite
	if len(args) > 0 && args[0] == "-a" {
		op, args = Append, args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil, errors.New("no file")
	}
	doc, err := r.heredoc(h)
	if err != nil {
		return nil, err
	}
	return r.fileWrites(args, op, doc.body)
}

func (r *scriptReader) isDevNull(w *syntax.Word) bool {
	target, err := literal(r.src, w)
	return err == nil && target == "/dev/null"
}

// sed reads `sed -i …` (see parseSedArgs); what it writes is computed by Script.Edits.
func (r *scriptReader) sed(stmt *syntax.Stmt, call *syntax.CallExpr) ([]Write, error) {
	args, err := r.plainArgs(stmt, call)
	if err != nil {
		return nil, err
	}
	sc, files, err := parseSedArgs(args)
	if err != nil {
		return nil, err
	}
	writes, err := r.fileWrites(files, EditInPlace, nil)
	for i := range writes {
		writes[i].sed = sc
	}
	return writes, err
}

// heredocStart returns the offset where the body of here-document h begins: after the first
// newline that ends the command line holding h. The rest of that line may hold other commands,
// but no other here-document, no command substitution and no newline inside quotes, where bash
// and the parser could disagree about which newline that is; the parser must agree on the offset.
func heredocStart(src string, h *syntax.Redirect) (int, error) {
	var quote byte
	for i := int(h.Word.End().Offset()); i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n' && quote != 0:
			return 0, errors.New("newline inside quotes on a here-document's command line")
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++ // the next character is quoted; \<newline> continues the line
		case quote == '"' && c == '"':
			quote = 0
		case c == '$' || c == '`':
			return 0, fmt.Errorf("%q on a here-document's command line", c)
		case quote != 0:
		case c == '\'' || c == '"':
			quote = c
		case strings.HasPrefix(src[i:], "<<"), strings.HasPrefix(src[i:], "(("):
			return 0, fmt.Errorf("%q on a here-document's command line", src[i:i+2])
		case c == '\n':
			if h.Hdoc != nil && int(h.Hdoc.Pos().Offset()) != i+1 {
				return 0, errors.New("the parser reads the here-document from another line")
			}
			return i + 1, nil
		}
	}
	return 0, errors.New("here-document without a body")
}
