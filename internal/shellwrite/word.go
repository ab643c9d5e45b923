package shellwrite

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// literal returns the value of w after quote removal, as bash, dash and zsh compute it, or an
// error if any part of w could expand, glob or mean different things to different shells.
//
// The value is computed from w's source text by unquote, not from the syntax tree: mvdan's Lit
// values keep some backslashes and drop others, and exactness is the point. The tree is still
// checked, so that both the parser and unquote must agree that w is a plain literal.
func literal(src string, w *syntax.Word) (string, error) {
	if err := plainParts(w); err != nil {
		return "", err
	}
	return unquote(sourceOf(src, w))
}

// sourceOf returns the text of n in src.
func sourceOf(src string, n syntax.Node) string {
	return src[n.Pos().Offset():n.End().Offset()]
}

// plainParts reports an error unless w consists of unquoted literals, '…' and "…" holding only
// literal text.
func plainParts(w *syntax.Word) error {
	for _, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
		case *syntax.SglQuoted:
			if part.Dollar {
				return errors.New("$'…' quoting")
			}
		case *syntax.DblQuoted:
			if part.Dollar {
				return errors.New(`$"…" quoting`)
			}
			for _, inner := range part.Parts {
				if _, ok := inner.(*syntax.Lit); !ok {
					return fmt.Errorf("expansion %T inside double quotes", inner)
				}
			}
		default:
			return fmt.Errorf("word part %T is not literal", part)
		}
	}
	return nil
}

// unquote performs quote removal on one shell word's source text. It accepts only:
//
//   - unquoted characters that no shell treats specially (see plainUnquoted);
//   - a backslash before any character (that character, literally), or before a newline (a line
//     continuation, removed);
//   - '…', verbatim;
//   - "…" without $ or `, where only \$ \` \" \\ and \<newline> are escapes and any other backslash
//     stays.
func unquote(word string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(word); {
		c := word[i]
		switch {
		case c == '\\':
			if i+1 == len(word) {
				return "", errors.New("word ends in a backslash")
			}
			if word[i+1] == '\n' {
				i += 2
				continue
			}
			_, size := utf8.DecodeRuneInString(word[i+1:])
			b.WriteString(word[i+1 : i+1+size])
			i += 1 + size
		case c == '\'':
			end := strings.IndexByte(word[i+1:], '\'')
			if end < 0 {
				return "", errors.New("unterminated single quote")
			}
			b.WriteString(word[i+1 : i+1+end])
			i += end + 2
			if i < len(word) && word[i] == '\'' {
				// zsh with RC_QUOTES (set in a login file, say) reads
				// 'a''b' as a'b; others read ab.
				return "", errors.New("single-quoted strings back to back ('a''b': zsh's RC_QUOTES reads a quote)")
			}
		case c == '"':
			n, err := unquoteDouble(word[i:], &b)
			if err != nil {
				return "", err
			}
			i += n
		case c == '$' || c == '`':
			return "", fmt.Errorf("expansion %q", c)
		case c == '=' && b.Len() == 0:
			// zsh expands =cmd to the command's path, also after quotes that
			// leave nothing: ''=ls (found by FuzzParse with zsh).
			return "", errors.New("word starts with '=' (zsh expands =cmd)")
		case plainUnquoted(c):
			b.WriteByte(c)
			i++
		default:
			return "", fmt.Errorf("unquoted %q", c)
		}
	}
	return b.String(), nil
}

// unquoteDouble removes the quotes of the "…" that word starts with, writes its value to b and
// returns the length of its source.
func unquoteDouble(word string, b *strings.Builder) (int, error) {
	for i := 1; i < len(word); {
		c := word[i]
		switch c {
		case '"':
			return i + 1, nil
		case '$', '`':
			return 0, fmt.Errorf("expansion %q inside double quotes", c)
		case '\\':
			if i+1 == len(word) {
				return 0, errors.New("unterminated double quote")
			}
			switch next := word[i+1]; next {
			case '$', '`', '"', '\\':
				b.WriteByte(next)
				i += 2
			case '\n':
				i += 2
			default:
				// Not an escape: the backslash stays and next is read as usual.
				b.WriteByte('\\')
				i++
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return 0, errors.New("unterminated double quote")
}

// plainUnquoted reports whether c means itself, unquoted, in any position of a word, in bash, dash
// and zsh with default options. Bytes of multi-byte UTF-8 characters qualify; the script was
// checked to be valid UTF-8. Deliberately absent: blanks and operators, quotes, $ and `, glob
// characters (* ? [ ] and the ! and ( of extglobs such as @(…) or !(…)), braces, ~ (which bash
// also expands after = and :), # (comments), ^ (zsh's extendedglob) and control characters.
// '=' qualifies; unquote rejects it where nothing precedes it in the word's value (zsh expands =cmd).
func plainUnquoted(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c >= utf8.RuneSelf:
		return true
	}
	return strings.IndexByte("_-./,:+@%=", c) >= 0
}
