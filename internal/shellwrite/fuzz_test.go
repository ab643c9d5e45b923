package shellwrite

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// fuzzCWD is the working directory the fuzzers parse in.
const fuzzCWD = "/home/dev/project"

// FuzzParse checks every script Parse accepts against bash, dash and zsh, seeded with the table.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.scriptIn("."))
	}
	f.Fuzz(checkParse)
}

// scriptShapes are templates for FuzzParseShapes: random text goes where Parse rarely gets to
// with unstructured input, inside here-documents and printf and echo arguments.
var scriptShapes = []func(a, b string) string{
	func(a, b string) string { return "cat <<EOF > f\n" + a + "\nEOF\n" },
	func(a, b string) string { return "cat <<'EOF' > f\n" + a + "\nEOF\n" },
	func(a, b string) string { return "cat <<-EOF > f\n" + a + "\n\tEOF\n" },
	func(a, b string) string { return "cat <<-\"EOF\" >" + b + "\n" + a + "\nEOF" },
	func(a, b string) string { return "echo " + a + " > " + b },
	func(a, b string) string { return "printf " + a + " " + b + " > f" },
	func(a, b string) string { return "printf '" + a + "' \"" + b + "\" > f" },
	func(a, b string) string { return "cd " + a + " && echo x > " + b },
}

// FuzzParseShapes is FuzzParse for scripts of the usual shapes.
func FuzzParseShapes(f *testing.F) {
	seeds := [][2]string{
		{"plain", "f"}, {"a\\$b \\` \\\\ \\x", "g"}, {"\tx\n\t\ty", "'h i'"}, {"'%s\\n'", "x"},
		{"%s|%b|\\t", "a\\nb"}, {"sub", "\"q r\""}, {"a\\\nb", "c\\\nd"}, {"EOF", "EOF"},
	}
	for shape := range scriptShapes {
		for _, seed := range seeds {
			f.Add(uint8(shape), seed[0], seed[1])
		}
	}
	f.Fuzz(func(t *testing.T, shape uint8, a, b string) {
		checkParse(t, scriptShapes[int(shape)%len(scriptShapes)](a, b))
	})
}

// fuzzAlphabet is what FuzzParseAlphabet builds text from, one token per input byte: the
// characters shells treat specially, prefixes of the delimiter EOF, and multi-byte runes of 2, 3
// and 4 bytes, bidi controls and zero-width characters, which byte-level mutation rarely makes
// (dash's dropped byte after a delimiter prefix went unnoticed for that reason).
var fuzzAlphabet = []string{
	"a", "E", "EO", "EOF", "x", "0", "1", " ", "\t", "\n", "'", "\"", "\\", "$", "`", "=", "!",
	"-", "+", ".", "..", "/", "#", "%", "%s", "%b", "\\n", ">", "<", "|", "&", ";", "(", ")",
	"{", "}", "*", "?", "[", "~", "^", ",", ":", "@",
	"é", "ł", "ß", "€", "中", "✓", "😀", "𝔸", "\u202e", "\u202a", "\u2066", "\u200b", "\u200d",
	"\ufeff", "\u0085", "\u00a0", "\u2028",
}

// fromAlphabet maps each byte of b to a token of fuzzAlphabet.
func fromAlphabet(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteString(fuzzAlphabet[int(c)%len(fuzzAlphabet)])
	}
	return s.String()
}

// FuzzParseAlphabet is FuzzParseShapes with text drawn from fuzzAlphabet.
func FuzzParseAlphabet(f *testing.F) {
	for shape := range scriptShapes {
		f.Add(uint8(shape), []byte{1, 45}, []byte{4})
		f.Add(uint8(shape), []byte{2, 50, 3}, []byte{0, 51})
		f.Add(uint8(shape), []byte{3, 52, 53, 54}, []byte{15, 22})
	}
	f.Fuzz(func(t *testing.T, shape uint8, a, b []byte) {
		checkParse(t, scriptShapes[int(shape)%len(scriptShapes)](fromAlphabet(a), fromAlphabet(b)))
	})
}

// checkParse requires a script that Parse accepts to be written by bash, dash and zsh as predicted.
func checkParse(t *testing.T, script string) {
	w, err := Parse(script, fuzzCWD)
	if err != nil {
		require.Empty(t, w.Path, "rejected (%v) but returned %+v", err, w)
		require.Nil(t, w.Content, "rejected (%v) but returned %+v", err, w)
		return
	}
	require.True(t, filepath.IsAbs(w.Path), "accepted with Path %q, Content %q", w.Path, w.Content)
	require.Equal(t, w.Path, filepath.Clean(w.Path), "accepted with Path %q, Content %q", w.Path, w.Content)
	require.True(t, utf8.Valid(w.Content), "accepted with Path %q, Content %q", w.Path, w.Content)
	checkRoundTrip(t, script)
	if !safeToRun(script) {
		return
	}
	for _, shell := range oracleShells {
		checkShellWrites(t, shell, parsed(func(string) string { return script }))
	}
}

// safeToRun reports whether an accepted script can run in a temporary directory even if Parse is
// wrong about it: without '/', '~' and '..' it cannot name a file outside that directory.
func safeToRun(script string) bool {
	return !strings.ContainsAny(script, "/~") && !strings.Contains(script, "..")
}

// FuzzScriptFromCommandLine checks every command line ScriptFromCommandLine accepts: the script
// survives quoting again, and bash, dash and zsh split the line into the same words.
func FuzzScriptFromCommandLine(f *testing.F) {
	for _, tc := range commandLineCases {
		f.Add(tc.cmd)
	}
	for _, tc := range parseCases {
		f.Add("/bin/zsh -lc " + singleQuoted(tc.script))
		f.Add("bash -c " + doubleQuoted(tc.script))
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		script, ok := ScriptFromCommandLine(cmd)
		if !ok {
			require.Empty(t, script, "rejected but returned %q", script)
			return
		}
		checkRoundTrip(t, script)
		argv, err := commandLineWords(cmd)
		require.NoError(t, err, "accepted but commandLineWords")
		// Without ( and ` nothing in the line can run a command; PATH finds none either.
		if strings.ContainsAny(cmd, "(`") {
			return
		}
		printWords := "printf '%s\\0' " + strings.TrimLeft(cmd, " \t\n")
		for _, shell := range oracleShells {
			run := runShellPath(t, shellPath(t, shell), printWords, shellDir(t), "/nonexistent")
			require.NoError(t, run.err, "%s -c %q: stderr=%q files=%d", shell, printWords, run.stderr, len(run.files))
			require.Empty(t, run.stderr, "%s -c %q: files=%d", shell, printWords, len(run.files))
			require.Empty(t, run.files, "%s -c %q", shell, printWords)
			got := strings.Split(strings.TrimSuffix(run.stdout, "\x00"), "\x00")
			require.True(t, slices.Equal(got, argv), "%s splits %q into %q, ScriptFromCommandLine into %q", shell, cmd, got, argv)
		}
	})
}
