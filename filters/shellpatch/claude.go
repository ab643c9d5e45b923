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
//     `a\!b`. Text with a | and no here-document is split into tokens and quoted again.
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
	if strings.Contains(script, "|") {
		return errors.New("claude re-tokenises a command with '|'")
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
	multilineSingle = regexp.MustCompile(`'(?:[^'\\]|\\.)*\n(?:[^'\\]|\\.)*'`)
	multilineDouble = regexp.MustCompile(`"(?:[^"\\]|\\.)*\n(?:[^"\\]|\\.)*"`)
)

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
