package shellwrite

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/testenv"
)

// fuzzLocales are the locales FuzzSedLocales runs the agent's sed in: C and C.UTF-8, always
// there, and the two .ci/run installs, whose collation and case rules differ from them.
var fuzzLocales = []string{"C", "C.UTF-8", "en_US.UTF-8", "tr_TR.UTF-8"}

// FuzzSedLocales checks `sed -i SCRIPT f` in the locale the agent gets (the proxy's own, which
// it inherits): whatever the script, the text and the locale, a file shown is what GNU sed run
// there writes. Scripts and texts are seeded with what depends on the locale: bracket ranges,
// equivalence and character classes, case conversion, dotted and dotless i, accents.
func FuzzSedLocales(f *testing.F) {
	for _, seed := range []struct{ script, text string }{
		{"s/[a-z]/_/g", "café\n"},
		{"s/[[=e=]]/X/g", "cafe é ê\n"},
		{`s/.*/\U&/`, "istanbul ıi\n"},
		{`s/\w\+/<&>/g`, "naïve İz\n"},
		{"y/abc/xyz/", "abcé\n"},
		{"s/[[:upper:]]/u/g", "İIÉe\n"},
		{`s/i/\u&/g`, "iı\n"},
	} {
		for l := range fuzzLocales {
			f.Add(seed.script, seed.text, uint8(l))
		}
	}
	var installed []string
	for _, l := range fuzzLocales {
		if l == "C" || testenv.Installed(l) {
			installed = append(installed, l)
		}
	}
	f.Fuzz(func(t *testing.T, sedScript, text string, locale uint8) {
		l := installed[int(locale)%len(installed)]
		script := "sed -i " + singleQuoted(sedScript) + " f"
		for _, name := range []string{"LANG", "LC_CTYPE", "LC_COLLATE", "COLS", "POSIXLY_CORRECT"} {
			t.Setenv(name, "")
			require.NoError(t, os.Unsetenv(name))
		}
		t.Setenv("LC_ALL", l)
		dir := shellDir(t)
		path := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		files, cut, err := scriptEdits(t, script, dir)
		if err != nil || cut != nil || len(files) != 1 {
			return // not shown: nothing to check
		}
		// What the agent's sed writes, in the agent's environment.
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "LC_ALL=" + l}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "shown, but the agent's sed failed in %s: %s", l, out)
		wrote, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(wrote), string(files[0].New), "in %s, %s on %q", l, script, text)
	})
}
