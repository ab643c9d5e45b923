package shellwrite

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzFiles are the files every fuzzed script starts with: one with a final newline, one
// without, and a directory.
var fuzzFiles = []string{"f", "a\nb\nc\n", "g", "x y", "sub/"}

// FuzzScript checks every script whose writes ParseScript and Edits show in full against bash,
// dash and zsh, seeded with the table. Only such scripts run: they run no command but the known
// ones (sed -i only with scripts --sandbox accepted), and without '/', '~' and '..' they cannot
// name a file outside the temporary directory.
func FuzzScript(f *testing.F) {
	for _, tc := range scriptCases {
		if !tc.noShell {
			f.Add(tc.script)
		}
	}
	f.Fuzz(func(t *testing.T, script string) { checkScript(t, script) })
}

// sequenceShapes are templates for FuzzScriptShapes: random text in sequences, appends and tee.
var sequenceShapes = []func(a, b string) string{
	func(a, b string) string { return "echo " + a + " >> f; printf " + b + " >> f" },
	func(a, b string) string { return "cat <<'EOF' >> g\n" + a + "\nEOF\ntee -a g <<EOF\n" + b + "\nEOF\n" },
	func(a, b string) string { return "echo " + a + " > " + b + " && echo x >> " + b },
	func(a, b string) string { return "cd sub; echo " + a + " > " + b + "; cd .. ; touch " + b },
	func(a, b string) string { return "mkdir -p " + a + " && echo x > " + a + "/" + b },
	func(a, b string) string { return "# " + a + "\ncat <<EOF > f && echo " + b + " >> f\n" + a + "\nEOF\n" },
	func(a, b string) string { return "tee " + a + " " + b + " > /dev/null <<'EOF'\n" + a + "\nEOF" },
	func(a, b string) string { return "printf '%s\\n' " + a + " >> f\nsed -i " + b + " f" },
}

// FuzzScriptShapes is FuzzScript for scripts of the usual shapes, with text from fuzzAlphabet.
func FuzzScriptShapes(f *testing.F) {
	for shape := range sequenceShapes {
		f.Add(uint8(shape), []byte{0, 4}, []byte{4})
		f.Add(uint8(shape), []byte{2, 50, 3}, []byte{0, 51})
		f.Add(uint8(shape), []byte{1, 8, 10}, []byte{15, 22})
	}
	f.Fuzz(func(t *testing.T, shape uint8, a, b []byte) {
		textA, textB := fromAlphabet(a), fromAlphabet(b)
		if !safeToRun(textA + textB) {
			return // the templates' own '/' name files in the directory, the text's might not
		}
		checkScriptCase(t, sc(sequenceShapes[int(shape)%len(sequenceShapes)](textA, textB)).with(fuzzFiles...))
	})
}

// FuzzSed checks `sed -i SCRIPT f` against GNU sed run by bash, dash and zsh, for random sed
// scripts and file contents, seeded with the table's sed scripts.
func FuzzSed(f *testing.F) {
	for _, tc := range scriptCases {
		if strings.HasPrefix(tc.script, "sed -i '") && !tc.noShell {
			if script, _, ok := strings.Cut(strings.TrimPrefix(tc.script, "sed -i '"), "'"); ok {
				f.Add(script, "one\ntwo a\nthree\n")
			}
		}
	}
	f.Add("s/a/b/", "a")
	f.Add("1d;$s/x/y/g", "x\nx\n")
	f.Fuzz(func(t *testing.T, sedScript, content string) {
		// Only f is named: a script sed --sandbox accepts reads and writes no other file.
		checkScriptCase(t, sc("sed -i "+singleQuoted(sedScript)+" f").with("f", content))
	})
}

// checkScript runs script from fuzzFiles if it names no file outside the directory.
func checkScript(t *testing.T, script string) {
	if safeToRun(script) {
		checkScriptCase(t, sc(script).with(fuzzFiles...))
	}
}

// checkScriptCase checks tc in the three shells when its writes are shown in full: Edits found
// every target inside the directory.
func checkScriptCase(t *testing.T, tc scriptCase) {
	dir := tc.setUp(t)
	files, cut, err := scriptEdits(t, tc.script, dir)
	if err != nil || cut != nil {
		return
	}
	for _, f := range files {
		require.True(t, strings.HasPrefix(f.Path, dir+"/"), "shown %s, outside %s", f.Path, dir)
	}
	for _, shell := range oracleShells {
		checkScriptInShell(t, shell, "-c", tc)
	}
}
