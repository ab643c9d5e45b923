package output

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claude-agent-acp 0.101's messages for a Bash call whose output the CLI
// saved, as a real run sends them (member order and all; only the output,
// the ids and the paths differ).
const claude101Agent = "@agentclientprotocol/claude-agent-acp"

// claude101Call is the tool_call, for a client with the extension (zed) or
// without.
func claude101Call(id string, zed bool) string {
	if zed {
		return update(`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"` + id + `"}},"toolCallId":"` + id + `","sessionUpdate":"tool_call","name":"Bash","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":"` + id + `"}]`)
	}
	return update(`"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"` + id + `","sessionUpdate":"tool_call","name":"Bash","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[]`)
}

// claude101Response is the update with the CLI's structured result: stdout
// clipped to 30,000 characters, and where the whole output is.
func claude101Response(id, clipped, path string, size int) string {
	return update(`"_meta":{"claudeCode":{"toolResponse":{"stdout":` + q(clipped) + `,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false,"persistedOutputPath":` + q(path) + `,"persistedOutputSize":` + itoa(size) + `},"toolName":"Bash"}},"toolCallId":"` + id + `","sessionUpdate":"tool_call_update"`)
}

// truncatedOutput is the output the agent shows: the clipped stdout and
// its note.
func truncatedOutput(clipped, path string, size int) string {
	return clipped + fmt.Sprintf("\n[Output truncated (%d bytes total): full output saved to %s]", size, path)
}

// claude101Data is the update carrying the output for a client with the
// extension (key terminal_output or terminal_output_delta).
func claude101Data(id, key, output string) string {
	return update(`"_meta":{"` + key + `":{"terminal_id":"` + id + `","data":` + q(output) + `}},"toolCallId":"` + id + `","sessionUpdate":"tool_call_update"`)
}

// claude101Exit is the final update for a client with the extension.
func claude101Exit(id string) string {
	return update(`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"` + id + `","exit_code":0,"signal":null}},"toolCallId":"` + id + `","sessionUpdate":"tool_call_update","status":"completed"`)
}

// claude101End is the final update for a client without it: the
// model-facing <persisted-output> text in rawOutput, the output fenced.
func claude101End(id, rawOutput, output string) string {
	return update(`"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"` + id + `","sessionUpdate":"tool_call_update","status":"completed","rawOutput":` + q(rawOutput) + `,"content":` + textContent("```console\n"+output+"\n```"))
}

// claude101Saved is a 4,000-line output saved where the CLI saves it, and
// what the agent shows of it.
type claude101Saved struct {
	config, path   string
	full, clipped  string
	preview, shown string // the <persisted-output> block; the clipped output and note
	cleanRawOutput string // the block as persisted-output cleans it
	wholeOutput    string // full without its trailing newline
	size           int
}

func newClaude101Saved(t *testing.T) claude101Saved {
	t.Helper()
	full := numberedLines(4000)
	config, path := claudeDirs(t, full)
	preview := full[:strings.LastIndexByte(full[:2000], '\n')]
	// Its 30,000th byte is the newline after "line 3110", which the CLI trims: only the note's
	// own newline stands before the note.
	s := claude101Saved{
		config: config, path: path, full: full, clipped: strings.TrimSuffix(full[:30000], "\n"), size: len(full),
		preview:     persistedBlock(path, preview),
		wholeOutput: strings.TrimRight(full, "\n"),
	}
	s.shown = truncatedOutput(s.clipped, path, s.size)
	s.cleanRawOutput = preview + "\n...\n" + note(path)
	return s
}

// TestTruncatedOutputClaude101 is claude-agent-acp 0.101's shape: with
// Expand, the clipped output and its note become the saved file, in the
// place the agent showed them; without, the agent's text stays as it is
// (already clean) and only rawOutput's tags are cleaned.
func TestTruncatedOutputClaude101(t *testing.T) {
	s := newClaude101Saved(t)
	const id = "toolu_01"
	cases := []struct {
		name   string
		client string
		expand bool
		in     []string
		want   []string // "" means forwarded as it is
	}{
		{"plain client, expanded", plainClient, true,
			[]string{claude101Call(id, false), claude101Response(id, s.clipped, s.path, s.size), claude101End(id, s.preview, s.shown)},
			[]string{"", "", claude101End(id, s.cleanRawOutput, s.wholeOutput)}},
		{"plain client, not expanded", plainClient, false,
			[]string{claude101Call(id, false), claude101Response(id, s.clipped, s.path, s.size), claude101End(id, s.preview, s.shown)},
			[]string{"", "", claude101End(id, s.cleanRawOutput, s.shown)}},
		{"zed client, expanded", zedClient, true,
			[]string{claude101Call(id, true), claude101Response(id, s.clipped, s.path, s.size), claude101Data(id, "terminal_output", s.shown), claude101Exit(id)},
			[]string{"", "", claude101Data(id, "terminal_output", s.wholeOutput), ""}},
		{"zed client, not expanded", zedClient, false,
			[]string{claude101Call(id, true), claude101Response(id, s.clipped, s.path, s.size), claude101Data(id, "terminal_output", s.shown), claude101Exit(id)},
			[]string{"", "", "", ""}},
		{"delta client, expanded", deltaClient, true,
			[]string{claude101Call(id, true), claude101Data(id, "terminal_output_delta", s.shown), claude101Exit(id)},
			[]string{"", claude101Data(id, "terminal_output_delta", s.wholeOutput), ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.client, claude101Agent, &PersistedOutput{Expand: c.expand, ConfigDirs: []string{s.config}})
			for _, l := range c.in {
				h.agent(l)
			}
			got := h.take()
			require.Len(t, got, len(c.want))
			for i, w := range c.want {
				if w == "" {
					w = c.in[i]
				}
				sameText(t, w, got[i])
			}
			assert.Empty(t, h.errs)
		})
	}
}

// TestTruncatedOutputWithStderr is claude-agent-acp's shape when the CLI
// reports stderr apart from stdout: the clipped stdout, a newline, stderr,
// then the note; the saved file holds stdout and then stderr. Expanded, the
// client shows the saved file. (The CLI usually merges the two, as
// TestPersistedOutputClaude101Stderr in internal/e2e shows.)
func TestTruncatedOutputWithStderr(t *testing.T) {
	full := numberedLines(4000)
	const stderr = "warning: on stderr"
	config, path := claudeDirs(t, full+stderr+"\n")
	shown := truncatedOutput(strings.TrimSuffix(full[:30000], "\n")+"\n"+stderr, path, len(full)+len(stderr)+1)
	for _, c := range []struct {
		name, data, want string
	}{
		{"stdout then stderr", shown, full + stderr},
		{"a stderr the file does not end with", strings.Replace(shown, stderr, "other", 1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, zedClient, claude101Agent, &PersistedOutput{Expand: true, ConfigDirs: []string{config}})
			in := claude101Data("toolu_01", "terminal_output", c.data)
			h.agent(in)
			want := in
			if c.want != "" {
				want = claude101Data("toolu_01", "terminal_output", c.want)
			}
			got := h.take()
			require.Len(t, got, 1)
			sameText(t, want, got[0])
		})
	}
}

// agentClip is, as measured with claude-agent-acp 0.101, the text it shows before its note of
// the output saved: the first 30,000 bytes (a character the cut splits shows as U+FFFD), the
// blank lines before the first text and the white space at the end trimmed. (The outputs
// below hold no white space but ' ', '\t' and '\n'.)
func agentClip(saved string) string {
	clip := strings.ToValidUTF8(saved[:30000], "\uFFFD")
	clip = regexp.MustCompile(`^(?:[ \t]*\n)+`).ReplaceAllString(clip, "")
	return strings.TrimRight(clip, " \t\n")
}

// Wherever the CLI's cut falls (inside a line, on its newline, right after it, in blank lines,
// in spaces, inside a 2-, 3- or 4-byte character), and whatever blank lines the output begins
// with, the client shows the whole saved file in place of the clip and the note; a file that
// differs from what the agent shows, in one byte before the cut, is not shown.
func TestTruncatedOutputWhereverTheClipEnds(t *testing.T) {
	const block = "line 7\n\n \t\nab é€😀  \n"
	for _, lead := range []string{"", "\n\n", " \n\t\n  "} {
		for shift := range len(block) {
			saved := lead + strings.Repeat("x", shift) + strings.Repeat(block, 31000/len(block))
			shown := truncatedOutput(agentClip(saved), "PATH", len(saved))
			t.Run(fmt.Sprintf("%q+%d, cut before %q", lead, shift, saved[29990:30000]), func(t *testing.T) {
				config, path := claudeDirs(t, saved)
				in := claude101Data("toolu_01", "terminal_output", strings.Replace(shown, "PATH", path, 1))
				h := newHarness(t, zedClient, claude101Agent, &PersistedOutput{Expand: true, ConfigDirs: []string{config}})
				h.agent(in)
				got := h.take()
				require.Len(t, got, 1)
				sameText(t, claude101Data("toolu_01", "terminal_output", strings.TrimRight(saved, "\n")), got[0])

				other := []byte(saved)
				other[29000] = '#'
				require.NoError(t, os.WriteFile(path, other, 0o644))
				h.agent(in)
				assert.Equal(t, []string{in}, h.take(), "a file that is not what the agent clipped")
			})
		}
	}
}

// TestTruncatedOutputLeftAlone: a note the filter cannot stand behind
// stays as the agent wrote it.
func TestTruncatedOutputLeftAlone(t *testing.T) {
	s := newClaude101Saved(t)
	other := filepath.Join(filepath.Dir(s.path), "other.txt")
	require.NoError(t, os.WriteFile(other, []byte("line 0\nsomething else\n"), 0o644))
	outside := filepath.Join(t.TempDir(), "out.txt")
	require.NoError(t, os.WriteFile(outside, []byte(s.full), 0o644))
	cases := []struct {
		name string
		data string
		max  int64
	}{
		{"the file does not continue the clipped text", truncatedOutput(s.clipped, other, s.size), 0},
		{"a file outside the config dirs", truncatedOutput(s.clipped, outside, s.size), 0},
		{"a file over the size cap", s.shown, int64(s.size) - 1},
		{"nothing before the note", strings.TrimPrefix(truncatedOutput("", s.path, s.size), "\n"), 0},
		{"a note that is not the last line", s.shown + "\nmore", 0},
		{"a relative path", truncatedOutput(s.clipped, "projects/p/s/tool-results/b1.txt", s.size), 0},
		{"a note of another wording", s.clipped + "\n[Output truncated, see " + s.path + "]", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, zedClient, claude101Agent, &PersistedOutput{Expand: true, MaxBytes: c.max, ConfigDirs: []string{s.config}})
			in := claude101Data("toolu_01", "terminal_output", c.data)
			h.agent(in)
			assert.Equal(t, []string{in}, h.take())
		})
	}
}

// TestTruncatedOutputThroughTranslation runs claude-agent-acp 0.101 (which
// sends the extension's shape, since --terminal-output asked for it) to a
// plain client through terminal-output and persisted-output: the client
// ends up showing the whole saved output, sent once, in the final state.
func TestTruncatedOutputThroughTranslation(t *testing.T) {
	s := newClaude101Saved(t)
	const id = "toolu_01"
	for _, expand := range []bool{false, true} {
		t.Run(fmt.Sprint("expand=", expand), func(t *testing.T) {
			h := newHarness(t, plainClient, claude101Agent, &TerminalOutput{}, &PersistedOutput{Expand: expand, ConfigDirs: []string{s.config}})
			h.agent(claude101Call(id, true))
			h.agent(claude101Response(id, s.clipped, s.path, s.size))
			h.agent(claude101Data(id, "terminal_output", s.shown))
			h.agent(claude101Exit(id))
			lines := h.take()
			want := s.shown
			if expand {
				want = s.wholeOutput
			}
			sameText(t, "```console\n"+want+"\n```", seen(t, lines)[id])
			live, final := 0, 0
			for _, l := range lines {
				switch {
				case strings.Contains(l, "toolResponse"): // the agent's own copy
				case strings.Contains(l, `"status":"completed"`):
					final += strings.Count(l, "line 2500\\n")
				default:
					live += strings.Count(l, "line 2500\\n")
				}
			}
			assert.Equal(t, 1, final, "the final update shows the output, once (a client that renders each update's own content needs it there)")
			assert.LessOrEqual(t, live, 1, "and before it, it was sent at most once")
			assert.Empty(t, h.errs)
		})
	}
}

// The filter looks for claude-agent-acp's note only where it can be: the
// last line of a data string or of a text item, fenced or not.
func TestEndsInNote(t *testing.T) {
	note := "\n[Output truncated (373905 bytes total): full output saved to /c/projects/p/s/tool-results/b1.txt]"
	cases := []struct {
		text string
		want bool
	}{
		{"line 1\nline 2" + note, true},
		{"```console\nline 1" + note + "\n```", true},
		{"```console\nline 1" + note + "\n```\n", true},
		{"line 1" + note + "\nmore output", false},
		{"line 1" + note + "\n", false},
		{"cc -c a.c\t[ok]\n", false},
		{"[ok]", false},
		{"```console\n[ok]\n```", false},
	}
	for _, c := range cases {
		q := q(c.text)
		assert.Equal(t, c.want, endsInNote([]byte(q[1:len(q)-1])), "%q", c.text)
	}
}
