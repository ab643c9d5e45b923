package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opencode 1.18's messages for a bash call, as a real run sends them
// (member order and all; only the output, the ids and the paths differ).
const opencodeAgent = "OpenCode"

const opencodeCmd = "for i in $(seq 1 2000); do echo line $i; done"

// opencodeCall is the tool_call.
func opencodeCall(id, cwd string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"bash","kind":"execute","status":"pending","locations":[{"path":` + q(cwd) + `}],"rawInput":{"cwd":` + q(cwd) + `}`)
}

// opencodeSnap is a running update: everything repeated, and the output so
// far as one text item.
func opencodeSnap(id, cwd, output string) string {
	return update(`"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"in_progress","kind":"execute","title":` + q(opencodeCmd) + `,"locations":[{"path":` + q(cwd) + `}],"rawInput":{"command":` + q(opencodeCmd) + `,"description":"Print lines","cwd":` + q(cwd) + `},"content":` + textContent(output))
}

// opencodeEnd is the final update of a call whose output was truncated:
// metadata is rawOutput.metadata.output.
func opencodeEnd(id, shown, metadata, path string) string {
	return update(`"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"completed","title":` + q(opencodeCmd) + `,"content":` + textContent(shown) + `,"rawOutput":{"output":` + q(shown) + `,"metadata":{"output":` + q(metadata) + `,"exit":0,"truncated":true,"outputPath":` + q(path) + `}}`)
}

// opencodeShown is the truncated text: the note, then the tail.
func opencodeShown(path, tail string) string {
	return "...output truncated...\n\nFull output saved to: " + path + "\n\n" + tail
}

// opencodeData makes a data dir with a saved output and returns the dir
// and the file's path.
func opencodeData(t *testing.T, content string) (dir, saved string) {
	dir = filepath.Join(t.TempDir(), "share", "opencode")
	saved = filepath.Join(dir, "tool-output", "tool_2104d35c7001xgSzKJEzj127AC")
	require.NoError(t, os.MkdirAll(filepath.Dir(saved), 0o755))
	require.NoError(t, os.WriteFile(saved, []byte(content), 0o644))
	return dir, saved
}

// TestOpencodeTruncatedFinal: with Expand, opencode's truncated final shows
// the whole output, from rawOutput.metadata.output while it is whole, else
// from the saved file; anything else stays as the agent sent it.
func TestOpencodeTruncatedFinal(t *testing.T) {
	full := numberedLines(2001) // "line 0" … "line 2000": one line over opencode's 2,000
	tail := full[strings.IndexByte(full, '\n')+1:]
	data, saved := opencodeData(t, full)
	other := filepath.Join(filepath.Dir(saved), "tool_other")
	require.NoError(t, os.WriteFile(other, []byte("something else\n"), 0o644))
	outside := filepath.Join(t.TempDir(), "tool-output", "tool_x")
	require.NoError(t, os.MkdirAll(filepath.Dir(outside), 0o755))
	require.NoError(t, os.WriteFile(outside, []byte(full), 0o644))
	clipped := opencodeClipped + full[len(full)-10000:] // metadata.output of a long output (its last 30,000 characters)

	cases := []struct {
		name     string
		path     string
		metadata string
		expand   bool
		max      int64
		want     string // the text shown; "" means the message is forwarded as it is
	}{
		{"whole in metadata", saved, full, true, 0, full},
		{"whole in metadata, the file unreadable", "/nonexistent/tool-output/tool_1", full, true, 0, full},
		{"clipped metadata: the file", saved, clipped, true, 0, full},
		{"clipped metadata, the file too big", saved, clipped, true, int64(len(full)) - 1, ""},
		{"clipped metadata, a file outside the data dir", outside, clipped, true, 0, ""},
		{"clipped metadata, a file that does not end with the tail", other, clipped, true, 0, ""},
		{"metadata that does not end with the tail", saved, "line 0\n", true, 0, full},
		{"not expanded", saved, full, false, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &PersistedOutput{Expand: c.expand, MaxBytes: c.max, OpencodeDataDirs: []string{data}}
			h := newHarness(t, plainClient, opencodeAgent, f)
			in := opencodeEnd("call_1", opencodeShown(c.path, tail), c.metadata, c.path)
			h.agent(in)
			got := h.take()
			require.Len(t, got, 1)
			if c.want == "" {
				assert.Equal(t, in, got[0])
				return
			}
			want := strings.Replace(in, `"content":`+textContent(opencodeShown(c.path, tail)), `"content":`+textContent(c.want), 1)
			sameText(t, want, got[0])
		})
	}
}

// TestOpencodeSnapshotsUntouched: opencode's running updates are no
// business of persisted-output.
func TestOpencodeSnapshotsUntouched(t *testing.T) {
	h := newHarness(t, plainClient, opencodeAgent, &PersistedOutput{Expand: true})
	in := []string{opencodeCall("call_1", "/p"), opencodeSnap("call_1", "/p", "line 1\n"), opencodeSnap("call_1", "/p", "...output truncated...\n")}
	for _, l := range in {
		h.agent(l)
	}
	assert.Equal(t, in, h.take())
}
