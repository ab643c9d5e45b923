package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// persistedBlock is what the Claude CLI gives instead of a large output.
func persistedBlock(path, preview string) string {
	return "<persisted-output>\nOutput too large (365.1KB). Full output saved to: " + path +
		"\n\nPreview (first 2KB):\n" + preview + "\n...\n</persisted-output>"
}

// note is the line that replaces the tags.
func note(path string) string {
	return "[Output truncated: 365.1KB in total, full output saved to " + path + "]"
}

// claudeDirs makes a config dir with a saved output and returns the dir
// and the file's path.
func claudeDirs(t *testing.T, content string) (config, saved string) {
	config = filepath.Join(t.TempDir(), ".claude")
	saved = filepath.Join(config, "projects", "-tmp-p", "0f3c-sess", "tool-results", "b1.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(saved), 0o755))
	require.NoError(t, os.WriteFile(saved, []byte(content), 0o644))
	return config, saved
}

func TestPersistedOutputClean(t *testing.T) {
	const path = "/home/u/.claude/projects/-p/s/tool-results/x.txt"
	block := persistedBlock(path, "line 1\nline 2")
	clean := "line 1\nline 2\n...\n" + note(path)
	cases := []struct{ name, in, want string }{
		{"rawOutput", upd("t1", `"status":"completed","rawOutput":`+q(block)),
			upd("t1", `"status":"completed","rawOutput":`+q(clean))},
		{"streamed data", out("t1", block), out("t1", clean)},
		{"the delta variant", upd("t1", `"_meta":{"terminal_output_delta":{"terminal_id":"t1","data":`+q(block)+`}}`),
			upd("t1", `"_meta":{"terminal_output_delta":{"terminal_id":"t1","data":`+q(clean)+`}}`)},
		{"fenced text content, other items untouched", upd("t1", `"content":[{"type":"content","content":{"type":"text","text":`+q("```console\n"+block+"\n```")+`}},{"type":"diff","path":"/a","newText":"<persisted-output>\n"}]`),
			upd("t1", `"content":[{"type":"content","content":{"type":"text","text":`+q("```console\n"+clean+"\n```")+`}},{"type":"diff","path":"/a","newText":"<persisted-output>\n"}]`)},
		{"text around the block stays", upd("t1", `"rawOutput":`+q("before\n"+block+"\nafter")),
			upd("t1", `"rawOutput":`+q("before\n"+clean+"\nafter"))},
		{"a block without a path is left alone", upd("t1", `"rawOutput":`+q("<persisted-output>\nsomething else\n</persisted-output>")), ""},
		{"an unclosed block is left alone", upd("t1", `"rawOutput":`+q("<persisted-output>\nOutput too large (1KB). Full output saved to: /x")), ""},
		{"not a tool update", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + q(block) + `}}}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, plainClient, claudeAgent, &PersistedOutput{})
			h.agent(c.in)
			want := c.want
			if want == "" {
				want = c.in
			}
			assert.Equal(t, []string{want}, h.take())
			assert.Empty(t, h.errs)
		})
	}
}

func TestPersistedOutputExpand(t *testing.T) {
	full := numberedLines(3000)
	preview := strings.TrimSuffix(full[:2000], "\n")
	preview = preview[:strings.LastIndexByte(preview, '\n')]
	config, saved := claudeDirs(t, full)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte(full), 0o600))
	link := filepath.Join(filepath.Dir(saved), "link.txt")
	require.NoError(t, os.Symlink(outside, link))
	dirLink := filepath.Join(config, "projects", "-tmp-p", "evil")
	require.NoError(t, os.Symlink(filepath.Dir(outside), dirLink))
	require.NoError(t, os.MkdirAll(filepath.Join(config, "projects", "-tmp-p", "s2", "tool-results", "d.txt"), 0o755))
	other := filepath.Join(config, "projects", "-tmp-p", "s2", "tool-results", "other.txt")
	require.NoError(t, os.WriteFile(other, []byte("not the same output\n"), 0o644))

	cases := []struct {
		name     string
		path     string
		max      int64
		expanded bool
	}{
		{"the saved file", saved, 0, true},
		{"within the limit exactly", saved, int64(len(full)), true},
		{"over the limit", saved, int64(len(full)) - 1, false},
		{"a symlink out of the directory", link, 0, false},
		{"a symlinked directory out of it", filepath.Join(dirLink, "tool-results", "secret.txt"), 0, false},
		{"not a clean path", config + "/projects/-tmp-p/0f3c-sess/tool-results/../tool-results/b1.txt", 0, false},
		{"a doubled slash", config + "/projects/-tmp-p/0f3c-sess//tool-results/b1.txt", 0, false},
		{"not under tool-results", filepath.Join(config, "projects", "-tmp-p", "0f3c-sess", "b1.txt"), 0, false},
		{"outside the config dirs", outside, 0, false},
		{"a directory", filepath.Join(config, "projects", "-tmp-p", "s2", "tool-results", "d.txt"), 0, false},
		{"missing", filepath.Join(filepath.Dir(saved), "gone.txt"), 0, false},
		{"a file that is not what the preview shows", other, 0, false},
		{"relative", "projects/-tmp-p/0f3c-sess/tool-results/b1.txt", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &PersistedOutput{Expand: true, MaxBytes: c.max, ConfigDirs: []string{"/nonexistent", config}}
			h := newHarness(t, zedClient, claudeAgent, f)
			block := persistedBlock(c.path, preview)
			h.agent(out("t1", block))
			h.agent(upd("t1", `"status":"completed","rawOutput":`+q(block)))
			got := h.take()
			require.Len(t, got, 2)
			clean := preview + "\n...\n" + note(c.path)
			if c.expanded {
				sameText(t, out("t1", strings.TrimSuffix(full, "\n")), got[0])
			} else {
				sameText(t, out("t1", clean), got[0])
			}
			sameText(t, upd("t1", `"status":"completed","rawOutput":`+q(clean)), got[1])
		})
	}
}

// TestPersistedOutputThroughTranslation runs claude-agent-acp's large output
// through terminal-output and persisted-output for a plain client.
func TestPersistedOutputThroughTranslation(t *testing.T) {
	full := numberedLines(3000)
	preview := full[:strings.LastIndexByte(full[:2000], '\n')]
	config, saved := claudeDirs(t, full)
	block := persistedBlock(saved, preview)
	for _, expand := range []bool{false, true} {
		h := newHarness(t, plainClient, claudeAgent, &TerminalOutput{}, &PersistedOutput{Expand: expand, ConfigDirs: []string{config}})
		h.agent(update(`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"tu1"}},"toolCallId":"tu1","sessionUpdate":"tool_call","status":"pending","kind":"execute","content":[{"type":"terminal","terminalId":"tu1"}]`))
		h.agent(update(`"_meta":{"terminal_output":{"terminal_id":"tu1","data":` + q(block) + `}},"toolCallId":"tu1","sessionUpdate":"tool_call_update"`))
		h.agent(update(`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"tu1","exit_code":0,"signal":null}},"toolCallId":"tu1","sessionUpdate":"tool_call_update","status":"completed","rawOutput":` + q(block) + `,"content":[{"type":"terminal","terminalId":"tu1"}]`))
		lines := h.take()
		require.Len(t, lines, 3)
		want := preview + "\n...\n" + note(saved)
		if expand {
			want = full
		}
		sameText(t, "```console\n"+strings.TrimRight(want, "\n")+"\n```", seen(t, lines)["tu1"])
		assert.NotContains(t, strings.Join(lines, "\n"), "persisted-output")
		if expand {
			assert.Equal(t, 1, strings.Count(lines[1], "line 2999"), "the saved output, while the call runs")
			assert.Equal(t, 1, strings.Count(lines[2], "line 2999"),
				"and again in the final update: a client that renders each update's own content (agent-shell) needs it there")
		}
	}
}
