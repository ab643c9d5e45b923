package agentproc

import (
	"errors"
	"fmt"
	"strings"
)

// isBatchFile reports whether Windows runs path through cmd.exe: npx,
// npm and most other launchers installed by npm are .cmd shims.
func isBatchFile(path string) bool {
	i := strings.LastIndexByte(path, '.')
	if i < 0 || strings.ContainsAny(path[i:], `\/`) {
		return false
	}
	ext := strings.ToLower(path[i:])
	return ext == ".cmd" || ext == ".bat"
}

// errBatchArg is an argument cmd.exe cannot be given literally.
var errBatchArg = errors.New("cannot be passed to a .cmd or .bat file safely")

// batchCommandLine is the command line that makes cmd.exe (comspec) run the
// batch file script with args, each arriving as one literal argument.
//
// Go's os/exec quotes arguments for programs that parse their command line
// as the C runtime does, and documents that batch files are the exception:
// cmd.exe reads the line itself, and its own metacharacters (& | < > ^ and
// %VAR%) would act even inside what the C rules consider quoted. So:
//   - /d skips AutoRun commands, /e:on and /v:off fix the extensions and
//     turn delayed (!VAR!) expansion off, /s /c runs the rest of the line
//     with only its outermost quotes removed;
//   - every argument that is not plainly safe is put in double quotes,
//     inside which cmd.exe treats & | < > ^ ( ) , ; = and spaces literally,
//     also when the script passes them on with %*;
//   - backslashes before a closing quote are doubled, as the program the
//     script finally runs parses them by the C rules;
//   - an argument with a double quote, a percent sign, a line break or NUL
//     is refused: cmd.exe has no escape for them that holds in every
//     script, so running it would not run what was asked.
func batchCommandLine(comspec, script string, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(quoteAlways(comspec))
	b.WriteString(` /d /e:on /v:off /s /c "`)
	if err := appendBatchArg(&b, script, true); err != nil {
		return "", fmt.Errorf("%q: %w", script, err)
	}
	for _, a := range args {
		b.WriteByte(' ')
		if err := appendBatchArg(&b, a, false); err != nil {
			return "", fmt.Errorf("argument %q: %w", a, err)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

func quoteAlways(s string) string { return `"` + s + `"` }

func appendBatchArg(b *strings.Builder, s string, quote bool) error {
	if strings.ContainsAny(s, "\"%\r\n\x00") {
		return errBatchArg
	}
	if !quote && s != "" && strings.IndexFunc(s, notPlain) < 0 {
		b.WriteString(s)
		return nil
	}
	b.WriteByte('"')
	b.WriteString(s)
	// The closing quote must not be escaped by the argument's own
	// trailing backslashes.
	b.WriteString(strings.Repeat(`\`, len(s)-len(strings.TrimRight(s, `\`))))
	b.WriteByte('"')
	return nil
}

// notPlain reports a character that cmd.exe or a C runtime could read as
// something other than itself outside quotes.
func notPlain(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune(`-_+./:@\`, r)
}
