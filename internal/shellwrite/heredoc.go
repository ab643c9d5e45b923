package shellwrite

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// heredoc is a here-document as bash reads it from the script's text.
type heredoc struct {
	body []byte // what the command reads on stdin
	end  int    // offset just past the delimiter line
}

// readHeredoc reads the body of the here-document r, which starts at offset start of src (the line
// after the command line), as bash and dash do. The body is read from src itself: mvdan's Hdoc
// keeps the tabs that <<- strips (and the terminator's own tabs), and after a line continuation
// it can end the body at another line than bash does (see checkHeredocExtent).
func readHeredoc(src string, start int, r *syntax.Redirect) (heredoc, error) {
	delim, quoted, err := heredocDelimiter(sourceOf(src, r.Word))
	if err != nil {
		return heredoc{}, err
	}
	stripTabs := r.Op == syntax.DashHdoc
	var body strings.Builder
	for pos := start; ; {
		if pos == len(src) {
			return heredoc{}, fmt.Errorf("here-document not terminated by %q", delim)
		}
		var l line
		if quoted {
			l = physicalLine(src, pos)
		} else if l, err = logicalLine(src, pos, stripTabs, delim); err != nil {
			return heredoc{}, err
		}
		text := l.text
		if stripTabs {
			text = strings.TrimLeft(text, "\t")
		}
		if text == delim {
			delimEnd := l.next
			if l.newline {
				delimEnd--
			}
			if err := checkHeredocExtent(r.Hdoc, start, pos, delimEnd); err != nil {
				return heredoc{}, err
			}
			if err := checkDelimiterPrefixes(src[start:pos], delim, stripTabs); err != nil {
				return heredoc{}, err
			}
			return heredoc{body: []byte(body.String()), end: l.next}, nil
		}
		if !l.newline {
			return heredoc{}, fmt.Errorf("here-document not terminated by %q", delim)
		}
		if !quoted {
			if text, err = expandHeredocLine(text); err != nil {
				return heredoc{}, err
			}
		}
		body.WriteString(text)
		body.WriteByte('\n')
		pos = l.next
	}
}

// checkDelimiterPrefixes rejects a body whose physical line starts with a prefix of the delimiter
// followed by a non-ASCII byte: dash 0.5.12 drops the byte after the prefix (`Ełk` in a body ended
// by EOF is written as 45 82 6b 0a), bash and zsh do not. The lines are checked as dash reads
// them, one physical line at a time, after the tabs <<- strips.
func checkDelimiterPrefixes(body, delim string, stripTabs bool) error {
	for l := range strings.Lines(body) {
		if stripTabs {
			l = strings.TrimLeft(l, "\t")
		}
		k := 0
		for k < len(l) && k < len(delim) && l[k] == delim[k] {
			k++
		}
		if k > 0 && k < len(l) && l[k] >= utf8.RuneSelf {
			return fmt.Errorf("here-document line %q starts with a prefix of the delimiter and a non-ASCII character (dash drops a byte)", strings.TrimSuffix(l, "\n"))
		}
	}
	return nil
}

// heredocDelimiter returns the delimiter that the source text word of `<<word` stands for, and
// whether it is quoted (then the body is verbatim). Only EOF, 'EOF' and "EOF" shapes are accepted:
// partly quoted (E"O"F) and backslashed (\EOF) delimiters are quoted too, but mvdan reads some of
// them differently from bash.
func heredocDelimiter(word string) (delim string, quoted bool, err error) {
	if len(word) >= 2 && (word[0] == '\'' || word[0] == '"') && word[len(word)-1] == word[0] {
		delim, quoted = word[1:len(word)-1], true
	} else {
		delim = word
	}
	if delim == "" || strings.TrimFunc(delim, isWordChar) != "" {
		return "", false, fmt.Errorf("here-document delimiter %q is not a plain word", word)
	}
	return delim, quoted, nil
}

func isWordChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
}

// line is one line of a here-document body, without its newline.
type line struct {
	text    string
	next    int  // offset of the next line
	newline bool // false: the line ends the script
}

// physicalLine returns the line starting at offset pos of src.
func physicalLine(src string, pos int) line {
	end := strings.IndexByte(src[pos:], '\n')
	if end < 0 {
		return line{text: src[pos:], next: len(src)}
	}
	return line{text: src[pos : pos+end], next: pos + end + 1, newline: true}
}

// logicalLine returns the line of an unquoted here-document starting at offset pos of src, with its
// line continuations (\<newline>) removed. Other backslash pairs are kept for expandHeredocLine.
//
// bash looks for the delimiter in the joined line and dash in each physical line, and dash keeps a
// \<newline> that directly follows the tabs <<- strips. Continuations where this could matter are
// rejected: a continuation must follow some text on its physical line, the continued line must not
// start with a tab or backslash, and no part of the joined line may be the delimiter.
func logicalLine(src string, pos int, stripTabs bool, delim string) (line, error) {
	var text strings.Builder
	physStart := pos
	joined := false
	for i := pos; i < len(src); {
		switch {
		case src[i] == '\n':
			l := line{text: text.String(), next: i + 1, newline: true}
			return l, checkJoin(l.text, joined, delim, stripTabs)
		case src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n':
			phys := src[physStart:i]
			if stripTabs {
				phys = strings.TrimLeft(phys, "\t")
			}
			if phys == "" {
				return line{}, errors.New("here-document line continuation at the start of a line")
			}
			if i+2 < len(src) && (src[i+2] == '\t' || src[i+2] == '\\') {
				return line{}, errors.New("here-document line continuation before a tab or backslash")
			}
			if next := physicalLine(src, i+2); next.text == delim {
				return line{}, errors.New("here-document line continuation before the delimiter")
			}
			joined = true
			i += 2
			physStart = i
		case src[i] == '\\' && i+1 < len(src):
			text.WriteString(src[i : i+2])
			i += 2
		default:
			text.WriteByte(src[i])
			i++
		}
	}
	l := line{text: text.String(), next: len(src)}
	return l, checkJoin(l.text, joined, delim, stripTabs)
}

// checkJoin rejects a joined line that bash would take for the delimiter and dash would not.
func checkJoin(text string, joined bool, delim string, stripTabs bool) error {
	if stripTabs {
		text = strings.TrimLeft(text, "\t")
	}
	if joined && text == delim {
		return errors.New("here-document delimiter made of a line continuation")
	}
	return nil
}

// expandHeredocLine applies what an unquoted here-document does to a (logical) line: \$ \` \\ stand
// for the character, any other backslash stays. $ and ` would expand: rejected.
func expandHeredocLine(text string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '$', '`':
			return "", fmt.Errorf("expansion %q in an unquoted here-document", c)
		case '\\':
			if i+1 < len(text) && strings.IndexByte("$`\\", text[i+1]) >= 0 {
				i++
				b.WriteByte(text[i])
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// checkHeredocExtent requires mvdan's reading of the here-document to agree with ours: its body
// starts at offset start of src, and its delimiter line starts at delimLine and ends at delimEnd
// (mvdan's Hdoc word ends there, delimiter included). Otherwise the parser has taken body text for
// commands, or commands for body text.
func checkHeredocExtent(hdoc *syntax.Word, start, delimLine, delimEnd int) error {
	if hdoc == nil {
		if delimLine != start {
			return errors.New("parser found an empty here-document, bash does not")
		}
		return nil
	}
	first, last := int(hdoc.Pos().Offset()), int(hdoc.End().Offset())
	if first != start || last != delimEnd {
		return fmt.Errorf("parser reads the here-document as bytes %d-%d, bash as %d-%d",
			first, last, start, delimEnd)
	}
	return nil
}
