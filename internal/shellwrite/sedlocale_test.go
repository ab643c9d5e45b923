package shellwrite

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/testenv"
)

// The agent inherits the proxy's environment: its sed runs in the proxy's locale and COLS, not in
// C. A `sed -i` is shown only as GNU sed writes it there, and only when no environment a login
// file may choose instead (C, C.UTF-8, an installed locale with other collation or case rules,
// another COLS, POSIXLY_CORRECT) writes anything else. Each row runs the real sed in the agent's
// environment afterwards: a shown file must hold what was shown.
func TestSedIsComputedInTheAgentsEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, locale string   // the agent's LC_ALL ("" unset)
		env          []string // more of the agent's environment
		script, file string
		want         string // shown; "" stands aside
		needs        []string
	}{
		{"a bracket range in en_US", "en_US.UTF-8", nil, "sed -i 's/[a-z]/_/g' f", "café\n", "", []string{"en_US.UTF-8"}},
		{"a bracket range, en_US installed", "C.UTF-8", nil, "sed -i 's/[a-z]/_/g' f", "café\n", "", []string{"en_US.UTF-8"}},
		{"an equivalence class", "en_US.UTF-8", nil, "sed -i 's/[[=e=]]/X/g' f", "cafe é\n", "", []string{"en_US.UTF-8"}},
		{"an equivalence class, en_US installed", "C.UTF-8", nil, "sed -i 's/[[=e=]]/X/g' f", "cafe é\n", "", []string{"en_US.UTF-8"}},
		{"case conversion in tr_TR", "tr_TR.UTF-8", nil, `sed -i 's/.*/\U&/' f`, "istanbul\n", "", []string{"tr_TR.UTF-8"}},
		{"case conversion, tr_TR installed", "C.UTF-8", nil, `sed -i 's/.*/\U&/' f`, "istanbul\n", "", []string{"tr_TR.UTF-8"}},
		{"l under the agent's COLS", "", []string{"COLS=20"}, "sed -i -n l f", strings.Repeat("a", 36) + "\n", "", nil},
		{"l, COLS unset", "", nil, "sed -i -n l f", strings.Repeat("a", 36) + "\n", "", nil},
		{"ASCII in en_US", "en_US.UTF-8", nil, "sed -i 's/a/b/' f", "abc\n", "bbc\n", []string{"en_US.UTF-8"}},
		{"a literal non-ASCII text in tr_TR", "tr_TR.UTF-8", nil, "sed -i 's/caf/CAF/' f", "café\n", "CAFé\n", []string{"tr_TR.UTF-8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, l := range tc.needs {
				testenv.Locale(t, l)
			}
			for _, name := range []string{"LANG", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "COLS", "POSIXLY_CORRECT"} {
				t.Setenv(name, "")
				require.NoError(t, os.Unsetenv(name))
			}
			agentEnv := []string{"PATH=/usr/bin:/bin"}
			if tc.locale != "" {
				t.Setenv("LC_ALL", tc.locale)
				agentEnv = append(agentEnv, "LC_ALL="+tc.locale)
			}
			for _, kv := range tc.env {
				name, val, _ := strings.Cut(kv, "=")
				t.Setenv(name, val)
				agentEnv = append(agentEnv, kv)
			}
			dir := shellDir(t)
			path := filepath.Join(dir, "f")
			require.NoError(t, os.WriteFile(path, []byte(tc.file), 0o644))
			files, cut, err := scriptEdits(t, tc.script, dir)
			require.NoError(t, err)

			// What the agent's sed writes, in the agent's environment.
			cmd := exec.Command("/bin/sh", "-c", tc.script)
			cmd.Dir, cmd.Env = dir, agentEnv
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			wrote, err := os.ReadFile(path)
			require.NoError(t, err)

			if tc.want == "" {
				assert.Empty(t, files, "shown, but the agent's sed wrote %q", wrote)
				assert.ErrorContains(t, cut, "sed writes differently")
				assert.NotEqual(t, tc.file, string(wrote), "the row must be one the environment changes")
				return
			}
			require.NoError(t, cut)
			require.Len(t, files, 1)
			assert.Equal(t, tc.want, string(files[0].New))
			assert.Equal(t, string(wrote), string(files[0].New), "the agent's sed wrote another text than was shown")
		})
	}
}
