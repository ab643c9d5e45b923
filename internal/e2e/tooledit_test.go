package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
)

// TestShellToPatchShowsWhatOpencodesEditToolWrote runs opencode's own edit and write tools
// through `acp-proxy --shell-to-patch`: every whole-file diff the client is shown (the
// permission request, the call's final state) must be the file before and the file the tool
// really wrote. With "permission": {"edit": "ask"} each call asks first; opencode shows a diff in
// its request only when its display-trimmed patch still applies (not for a file indented
// throughout), and in its final update only oldString → newString (edit) or nothing (write):
// the proxy adds the whole file's diff to both. Without asking, the tool writes as it reports
// its input, and the proxy adds nothing.
func TestShellToPatchShowsWhatOpencodesEditToolWrote(t *testing.T) {
	before, calls, after := opencodeEditFiles, opencodeEditCalls, opencodeEditResults
	for _, ask := range []bool{true, false} {
		name := "ask"
		if !ask {
			name = "allow"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			policy := ""
			if ask {
				policy = "ask"
			}
			s := launchScript(t, "opencode", mockmodel.Script{Calls: calls}, false, policy)
			for rel, content := range before {
				require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, rel), []byte(content), 0o644))
			}
			trace := filepath.Join(t.TempDir(), "live.jsonl")
			opts := acpclient.Options{
				Argv:         append([]string{proxyBin(t), "--shell-to-patch", "--record", trace, "--"}, s.agent.Argv...),
				Env:          s.agent.Env,
				Dir:          s.agent.Dir,
				Capabilities: clientCaps(false),
			}
			var c *acpclient.Client
			t.Run("session", func(t *testing.T) { c = acpclient.Run(t, opts, "edit the files") })
			if t.Failed() {
				t.FailNow()
			}
			for rel, want := range after {
				if got, err := os.ReadFile(filepath.Join(s.agent.Dir, rel)); assert.NoError(t, err) {
					assert.Equal(t, want, string(got), "what the agent wrote to %s", rel)
				}
			}
			lines := clientLines(c)
			for path, d := range shownDiffs(t, lines) {
				if !filepath.IsAbs(path) {
					continue // opencode's own oldString → newString, named relative to the project
				}
				rel, _ := filepath.Rel(s.agent.Dir, path)
				if got, err := os.ReadFile(path); assert.NoError(t, err) {
					assert.Equal(t, d.NewText, string(got), "the client was shown %s becoming the left; the agent wrote the right", rel)
				}
				old, existed := before[rel]
				if assert.False(t, d.OldText == nil && existed, "the client was shown %s as %s before; it was %q (existed: %v)", rel, mustJSON(t, d.OldText), old, existed) {
					assert.False(t, d.OldText != nil && *d.OldText != old, "the client was shown %s as %s before; it was %q (existed: %v)", rel, mustJSON(t, d.OldText), old, existed)
				}
			}
			whole := wholeFileDiffsAtTheEnd(t, lines)
			want := map[string]bool{}
			if ask {
				want = map[string]bool{"a.txt": true, "d.txt": true, "b.txt": true, "e.txt": true, "r.txt": true, "n.txt": true}
			}
			for rel := range after {
				assert.Equal(t, want[rel], whole[filepath.Join(s.agent.Dir, rel)], "%s: a whole-file diff in the call's final state: %v, want %v", rel, !want[rel], want[rel])
			}
			if ask {
				for _, p := range c.PermissionRequests() {
					if !containsDiff(p) && !containsPath(p, "m.txt") {
						assert.True(t, containsPath(p, "p.txt"), "a permission request without a diff: %s", p)
					}
				}
			}
			// The trace holds every file the proxy read: a replay shows the same, whatever is
			// on this disk now.
			for rel := range after {
				require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, rel), []byte("not what the session saw\n"), 0o644))
			}
			replayed := replayTrace(t, trace, "--shell-to-patch")
			sameLines(t, "agent→client, live vs replay", lines, linesOf(replayed, acp.AgentToClient))
			if t.Failed() {
				t.Log(c.Report())
			}
		})
	}
}

// wholeFileDiffsAtTheEnd is the set of absolute paths a call's final state shows a diff of.
func wholeFileDiffsAtTheEnd(t *testing.T, lines [][]byte) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, st := range finalStates(t, lines) {
		var items []diffItem
		json.Unmarshal([]byte(st["content"]), &items)
		for _, d := range items {
			if d.Type == "diff" && filepath.IsAbs(d.Path) {
				out[d.Path] = true
			}
		}
	}
	return out
}

func containsDiff(p []byte) bool { return bytes.Contains(p, []byte(`"type":"diff"`)) }

func containsPath(p []byte, rel string) bool { return bytes.Contains(p, []byte("/"+rel+`"`)) }

// opencodeEditFiles, opencodeEditCalls and opencodeEditResults are the files, the calls of
// opencode's edit and write tools, and what the tools make of the files (the opencode edit trace
// and TestShellToPatchShowsWhatOpencodesEditToolWrote).
var (
	opencodeEditFiles = map[string]string{"a.txt": "one\ntwo\nthree\n", "d.txt": "    alpha\n    beta\n    gamma\n", "m.txt": "foo\nfoo\n",
		"e.txt": "x $ y\nfoo\n", "r.txt": "a\nb\na\n", "p.txt": "p\np\n"}
	opencodeEditCalls = []mockmodel.Call{
		{Tool: "edit", Args: map[string]any{"filePath": "a.txt", "oldString": "two", "newString": "TWO"}},
		{Tool: "edit", Args: map[string]any{"filePath": "d.txt", "oldString": "    beta", "newString": "    BETA"}},
		{Tool: "edit", Args: map[string]any{"filePath": "m.txt", "oldString": "foo", "newString": "bar"}}, // several matches: the tool refuses
		{Tool: "write", Args: map[string]any{"filePath": "b.txt", "content": "new file\n"}},
		{Tool: "edit", Args: map[string]any{"filePath": "e.txt", "oldString": "foo", "newString": "$&-$$"}}, // literal: spliced in
		{Tool: "edit", Args: map[string]any{"filePath": "r.txt", "oldString": "a", "newString": "c", "replaceAll": true}},
		{Tool: "edit", Args: map[string]any{"filePath": "p.txt", "oldString": "p", "newString": "$&$&", "replaceAll": true}}, // a pattern: the proxy stands aside
		{Tool: "edit", Args: map[string]any{"filePath": "n.txt", "oldString": "", "newString": "created\n"}},
	}
	opencodeEditResults = map[string]string{"a.txt": "one\nTWO\nthree\n", "d.txt": "    alpha\n    BETA\n    gamma\n", "m.txt": "foo\nfoo\n", "b.txt": "new file\n",
		"e.txt": "x $ y\n$&-$$\n", "r.txt": "c\nb\nc\n", "p.txt": "pp\npp\n", "n.txt": "created\n"}
)
