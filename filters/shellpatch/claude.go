package shellpatch

import (
	"errors"
	"regexp"
	"strings"
)

// Claude Code does not hand the Bash tool's command to the shell as it is. It builds
//
//	source SNAPSHOT && shopt -u extglob … && eval QUOTED && pwd -P >| CWDFILE
//
// in the user's shell (`-c -l`), with the command transformed first (claude-agent-sdk's cli.js, as
// shipped with claude-agent-acp 0.23.1; docs/agents.md):
//
//  1. Every redirect to the Windows null device (`>nul`, `2> NUL`, case-insensitive, before a
//     blank, the end or one of | & ; ) newline) becomes `/dev/null`, wherever it is in the text,
//     here-document bodies and quotes included.
//  2. QUOTED is the text in single quotes (' as '"'"', exact) when it holds a here-document
//     (<<EOF, <<'EOF', <<"EOF", <<-…, <<\EOF, unless the text also looks like a shift: a digit,
//     <<, a digit) or a quoted string spanning lines. Otherwise it is the text quoted by the
//     shell-quote package, followed by `< /dev/null`: that puts the text in double quotes when it
//     holds a ', and escapes ! there as \! — which the shell keeps, so `echo 'a!b' > f` writes
//     `a\!b`.
//  3. Text with a | (and no here-document or input redirect) goes to a re-tokeniser, which quotes
//     the text in single quotes (exact) when it holds a backquote, $(, $NAME or ${, a shell
//     keyword (for while until if case select) followed by a blank, or a line that a line
//     continuation does not join; otherwise it splits the text with the shell-quote package and,
//     when a | operator follows the first token, rebuilds the command from the tokens with
//     `< /dev/null` before the pipe. A | inside quotes is no operator: single-quoted, exact.
//     claude-agent-acp 0.101.0 always single-quotes text with a |.
//
// claudeTransformed returns why Claude Code would not run script as written, or nil when the
// transformation is exact: the eval runs script itself.
func claudeTransformed(script string) error {
	if nulRedirect.MatchString(script) {
		return errors.New("claude rewrites a redirect to nul into /dev/null")
	}
	if hasClaudeHeredoc(script) || multilineQuoted(script) {
		return nil // single-quoted whole: exact
	}
	if claudeRetokenises(script) {
		return errors.New("claude re-tokenises a command with a '|' operator")
	}
	if strings.Contains(script, "'") && strings.Contains(script, "!") {
		return errors.New("claude escapes '!' (the command holds a ', so it is double-quoted for eval)")
	}
	return nil
}

// jsRegexp compiles a JavaScript pattern whose \s is JavaScript's: Unicode white space and
// U+FEFF, where Go's \s is ASCII only.
func jsRegexp(pattern string) *regexp.Regexp {
	const jsSpace = `[\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]`
	return regexp.MustCompile(strings.ReplaceAll(pattern, `\s`, jsSpace))
}

var (
	nulRedirect = jsRegexp(`(\d?&?>+\s*)[Nn][Uu][Ll](\s|$|[|&;)\n])`)
	// claudeHeredoc is how Claude Code spots a here-document; the back-reference of its pattern
	// (a quote, a word, the same quote) is spelled out.
	claudeHeredoc = jsRegexp(`<<-?\s*(?:\w+|'\w+'|"\w+"|\\\w+)`)
	// notHeredoc are its exceptions: shifts such as 1 << 2, [[ 1 << 2 ]] and $(( … << … )).
	notHeredoc = []*regexp.Regexp{
		jsRegexp(`\d\s*<<\s*\d`),
		jsRegexp(`\[\[\s*\d+\s*<<\s*\d+\s*\]\]`),
		jsRegexp(`\$\(\(.*<<.*\)\)`),
	}
	// The re-tokeniser's tests, in Claude Code's own patterns.
	// claudeInputRedirect matches less than Claude Code's /(?:^|[\s;&|])<(?![<(])\s*\S+/ (ASCII
	// blanks around, visible ASCII characters), never more: a miss only refuses.
	claudeInputRedirect = regexp.MustCompile(`(?:^|[\t\n\v\f\r ;&|])<(?:[!-'*-;=-~]|[\t ]+[!-~])`)
	claudeVariable      = regexp.MustCompile(`\$[A-Za-z_{]`)
	claudeKeyword       = jsRegexp(`\b(for|while|until|if|case|select)\s`)
	claudeContinuation  = regexp.MustCompile(`\\+\n`)
	multilineSingle     = regexp.MustCompile(`'(?:[^'\\]|\\.)*\n(?:[^'\\]|\\.)*'`)
	multilineDouble     = regexp.MustCompile(`"(?:[^"\\]|\\.)*\n(?:[^"\\]|\\.)*"`)
)

// claudeRetokenises reports whether Claude Code 0.23.1 rebuilds script from shell-quote's tokens
// (see claudeTransformed, 3), for a script without a here-document. Where shell-quote could fail
// to parse the text, the answer is yes.
func claudeRetokenises(script string) bool {
	if !strings.Contains(script, "|") || claudeInputRedirect.MatchString(script) ||
		strings.Contains(script, "`") || strings.Contains(script, "$(") ||
		claudeVariable.MatchString(script) || claudeKeyword.MatchString(script) ||
		strings.Contains(claudeJoinLines(script), "\n") {
		return false // not re-tokenised, or single-quoted whole
	}
	return hasPipeOperator(script)
}

// claudeJoinLines removes the line continuations Claude Code removes before it looks for a
// newline: a newline after an odd number of backslashes goes, with one of them.
func claudeJoinLines(script string) string {
	return claudeContinuation.ReplaceAllStringFunc(script, func(m string) string {
		if n := len(m) - 1; n%2 == 1 {
			return strings.Repeat("\\", n-1)
		}
		return m
	})
}

// hasPipeOperator reports whether shell-quote's tokeniser could find a | operator in script: a |
// outside single and double quotes, not escaped by a backslash, and not part of || or |&.
func hasPipeOperator(script string) bool {
	var quote byte
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.HasPrefix(script[i:], "||"):
			i++
		case c == '|' && !strings.HasPrefix(script[i:], "|&"):
			return true
		}
	}
	return false
}

func hasClaudeHeredoc(script string) bool {
	for _, re := range notHeredoc {
		if re.MatchString(script) {
			return false
		}
	}
	return claudeHeredoc.MatchString(script)
}

func multilineQuoted(script string) bool {
	return multilineSingle.MatchString(script) || multilineDouble.MatchString(script)
}
