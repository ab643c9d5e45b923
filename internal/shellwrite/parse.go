package shellwrite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Write is what a recognised command provably writes: for [Parse], exactly one file, truncated
// and replaced; in a [Script], one statement's effect on one file, as Op says.
type Write struct {
	Op Op // Overwrite for Parse
	// Path is the file, absolute and clean: the target joined to cwd and cd's directory. When
	// the target has a '..' this is only its textual reading (the kernel resolves '..' after
	// symlinks): [CheckTarget] says where the file lands.
	Path    string
	Content []byte // byte-for-byte what bash, dash and zsh write (Overwrite) or add (Append)

	place place
	sed   *sedCall // EditInPlace: the sed command
	group int      // the statement the write belongs to, counted from 0
}

// MaxScriptBytes bounds the scripts Parse accepts. Linux refuses to start a program with one
// argument of 128 KiB or more (MAX_ARG_STRLEN, 32 pages: execve fails with E2BIG), and the script
// is one argument of `bash -c SCRIPT`, so a longer script writes nothing. Agents also wrap the
// script before it reaches the shell (claude quotes it for an eval, turning each ' into four
// bytes), so the bound is half that limit, with every ' counted four times.
const MaxScriptBytes = 64 << 10

// checkScriptSize bounds script by MaxScriptBytes, with every ' counted as 4 bytes.
func checkScriptSize(script string) error {
	if n := len(script) + 3*strings.Count(script, "'"); n > MaxScriptBytes {
		return fmt.Errorf("script of %d bytes (quotes counted 4 times) is over %d: too long for one argument of a command line", n, MaxScriptBytes)
	}
	return nil
}

// Parse decides whether script provably writes exactly one file, and what. cwd is the absolute
// working directory the command runs in. A nil error means accepted. The error says why not (for logs).
func Parse(script, cwd string) (Write, error) { return named(parse(script, cwd)) }

// named is what an entry point returns: v, or the zero value and err saying it comes from this package.
func named[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, fmt.Errorf("shellwrite: %w", err)
	}
	return v, nil
}

func parse(script, cwd string) (Write, error) {
	if err := checkScriptSize(script); err != nil {
		return Write{}, err
	}
	file, err := parseShell(script)
	if err != nil {
		return Write{}, err
	}
	cmd, err := splitCommand(script, file)
	if err != nil {
		return Write{}, err
	}
	content, err := cmd.content(script)
	if err != nil {
		return Write{}, err
	}
	p, err := cmd.place(script, cwd)
	if err != nil {
		return Write{}, err
	}
	return Write{Path: p.lexical(), Content: content, place: p}, nil
}

// content returns what the command writes to its standard output.
func (c *command) content(script string) ([]byte, error) {
	var doc *heredoc
	if c.heredoc != nil {
		d, err := readHeredoc(script, c.lineEnd, c.heredoc)
		if err != nil {
			return nil, err
		}
		if strings.Trim(script[d.end:], " \t\n") != "" {
			return nil, errors.New("text after the here-document")
		}
		doc = &d
	}
	return callOutput(script, c.call, doc)
}

// callOutput returns what the cat, echo or printf call prints, reading doc (nil without a
// here-document) on its standard input.
func callOutput(script string, call *syntax.CallExpr, doc *heredoc) ([]byte, error) {
	name := sourceOf(script, call.Args[0])
	args := make([]string, 0, len(call.Args)-1)
	for i, w := range call.Args[1:] {
		a, err := literal(script, w)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", name, i+1, err)
		}
		args = append(args, a)
	}
	switch {
	case name == "cat" && doc != nil && len(args) == 0:
		return doc.body, nil
	case name == "cat" && doc != nil:
		return nil, errors.New("cat: arguments (only a here-document is read)")
	case doc != nil:
		return nil, fmt.Errorf("%s: here-document", name)
	case name == "echo":
		return echoOutput(args)
	case name == "printf" && len(args) > 0:
		return printfOutput(args[0], args[1:])
	}
	return nil, fmt.Errorf("command %q with these arguments is not a recognised write", name)
}

// place returns where the command's output redirect opens its file, run in cwd.
func (c *command) place(script, cwd string) (place, error) {
	target, err := literal(script, c.output.Word)
	if err != nil {
		return place{}, fmt.Errorf("redirect target: %w", err)
	}
	cdDir := ""
	if c.cdDir != nil {
		if cdDir, err = literal(script, c.cdDir); err != nil {
			return place{}, fmt.Errorf("cd: %w", err)
		}
		if cdDir == "" {
			// `cd ''` means different things to different shells and POSIX versions.
			return place{}, errors.New("cd: empty directory")
		}
	}
	return targetPlace(cwd, cdDir, target)
}

// parseShell parses script as bash, keeping comments so that they can be rejected.
func parseShell(script string) (*syntax.File, error) {
	if err := checkText(script); err != nil {
		return nil, err
	}
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	file, err := parser.Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	hasComment := false
	syntax.Walk(file, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.Comment); ok {
			hasComment = true
		}
		return !hasComment
	})
	if hasComment {
		return nil, errors.New("comment")
	}
	return file, nil
}

// checkText rejects text that shells or the parser read differently: NUL (bash drops it from -c
// strings), CR (mvdan tokenises it differently from bash, which writes to "f\r"), the other ASCII
// control characters but tab and newline (bash uses \x01 and \x7f as internal quoting marks:
// "\\\x7f" in a heredoc loses the DEL) and invalid UTF-8.
func checkText(s string) error {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return errors.New("NUL byte")
	case strings.IndexByte(s, '\r') >= 0:
		return errors.New("carriage return")
	case strings.IndexFunc(s, isOddControl) >= 0:
		return errors.New("control character")
	case !utf8.ValidString(s):
		return errors.New("invalid UTF-8")
	}
	return nil
}

func isOddControl(r rune) bool { return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f }

// DependsOnCwd reports whether what the command does depends on the directory it runs in: a
// relative cd (which may fail there, even before an absolute target), or a relative target
// without an absolute cd.
func (w Write) DependsOnCwd() bool {
	if w.place.cdArg != "" {
		return !filepath.IsAbs(w.place.cdArg)
	}
	return !filepath.IsAbs(w.place.target)
}

// SearchesCDPATH reports whether the command's cd looks its argument up in $CDPATH: a relative
// argument that does not start with . or .. (POSIX; bash, dash and zsh do). With CDPATH set, cd
// may land elsewhere.
func (w Write) SearchesCDPATH() bool { return searchesCDPATH(w.place.cdArg) }

// searchesCDPATH reports whether `cd arg` looks arg up in $CDPATH.
func searchesCDPATH(arg string) bool {
	return arg != "" && !filepath.IsAbs(arg) && arg != "." && arg != ".." &&
		!strings.HasPrefix(arg, "./") && !strings.HasPrefix(arg, "../")
}

// CdDir returns the directory the command's `cd DIR &&` changes to (absolute, clean, as a logical
// cd computes it), and false without a cd. An agent whose shell persists is left there.
func (w Write) CdDir() (string, bool) { return w.place.dir, w.place.cdArg != "" }
