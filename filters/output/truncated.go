package output

import (
	"bytes"
	"crypto/sha256"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// claude-agent-acp ≥0.100 no longer shows the <persisted-output> block for
// a command: it shows the first 30,000 bytes of stdout, trimmed (the structured
// result the CLI clips when it saves the output; claudeClip) followed by one line,
//
//	[Output truncated (373905 bytes total): full output saved to /…/tool-results/b1.txt]
//
// in the terminal data, or in the ```console fence of a client without the
// extension (docs/agents.md). The text is already clean; with Expand, the
// clipped text and the note are replaced by the saved file, when the file is
// safe to read (savedFile) and its clip is exactly the clipped text.

// truncatedTag starts the note.
const truncatedTag = "[Output truncated"

// Looks at a message's bytes that spare parsing most messages that cannot
// show a note (mayShowNote): a note is in a tool update ("tool_call" and
// "tool_call_update" start alike), in streamed data or in a text item.
var (
	quotedToolCall       = []byte(`"tool_call`)
	quotedTerminalOutput = []byte(`"terminal_output`)
	quotedText           = []byte(`"text"`)
)

// mayShowNoteRaw reports whether the message raw may show a note, from its
// bytes alone.
func mayShowNoteRaw(raw []byte) bool {
	return mentions(raw, quotedToolCall) && (mentions(raw, quotedTerminalOutput) || mentions(raw, quotedText))
}

// mayShowNote reports whether u may show an agent's note of output it cut
// short where Expand replaces it: opencode's in the content of a final
// update, claude-agent-acp's as the last line of streamed data or of a
// text item (fenced or not; truncatedNote), which so ends in ']'. Command
// output streams in many large updates and almost none ends so, so the
// test is a look at where each string ends, not a search of the message.
func mayShowNote(u *acp.ToolUpdate) bool {
	if u.Final() && mentions(u.Content, quotedOpencodeTag) {
		return true
	}
	output, delta := acp.RawData(u.Term)
	if endsInNote(output) || endsInNote(delta) {
		return true
	}
	found := false
	if u.Content != nil {
		rawjson.TrustedElements(u.Content, func(item []byte) bool {
			text, ok := itemText(item)
			found = ok && endsInNote(text)
			return !found
		})
	}
	return found
}

// endsInNote reports whether the JSON string bytes esc, fenced or not, may
// end in claude-agent-acp's note.
func endsInNote(esc []byte) bool {
	_, body, _ := splitFence(esc, `\n`)
	return bytes.HasSuffix(body, []byte("]")) && mentions(body, []byte(truncatedTag))
}

// truncatedNote is the note's line, with the newline before it.
var truncatedNote = regexp.MustCompile(`^\n\[Output truncated(?: \(\d+ bytes total\))?: full output saved to (/[^\n]+)\]$`)

// expandTruncated returns body (decoded output, unfenced) with the clipped
// output and the note that ends it replaced by the saved file, without its
// trailing newlines; ok is false when body is not of that shape or the file
// does not continue exactly what body shows.
func (f *PersistedOutput) expandTruncated(body string) (string, bool) {
	if f.saver != savesClaude {
		return "", false // another agent's output: a note there is what a command printed
	}
	i := strings.LastIndex(body, "\n"+truncatedTag)
	if i <= 0 {
		return "", false // no note, or nothing before it: it clips no text
	}
	m := truncatedNote.FindStringSubmatch(body[i:])
	if m == nil {
		return "", false
	}
	clipped, path := body[:i], m[1]
	saved, ok := f.savedFile(path, f.ConfigDirs, claudeToolResult)
	// The proof is the whole clip, as the agent shows it (or that and a stderr apart).
	if !ok {
		return "", false
	}
	clip, ok := claudeClip(saved)
	if !ok || clipped != clip && !clipsStdout(clipped, clip, saved) {
		return "", false
	}
	return strings.TrimRight(saved, "\n"), true
}

// claudeClipBytes is how much of a saved command's output the Claude CLI keeps as the
// structured stdout claude-agent-acp 0.101 shows: its first 30,000 bytes.
const claudeClipBytes = 30000

// claudeClip is what claude-agent-acp shows before its note of the output saved: the first
// claudeClipBytes bytes, decoded as the CLI decodes them (a character the cut splits becomes
// one U+FFFD), without the blank lines at its start and the white space at its end (JavaScript's
// \s), which the CLI trims. So when the clip ends in a newline, only the note's own newline
// stands before the note. ok is false for an output too short to have been saved.
func claudeClip(saved string) (clip string, ok bool) {
	if len(saved) <= claudeClipBytes {
		return "", false
	}
	clip = saved[:claudeClipBytes]
	if start := lastRuneStart(clip); !utf8.FullRuneInString(clip[start:]) {
		clip = clip[:start] + string(utf8.RuneError)
	}
	return strings.TrimRightFunc(trimBlankLines(clip), jsSpace), true
}

// lastRuneStart is where the last character of s begins: its last byte that is not a UTF-8
// continuation byte, looking back no further than a character can be long.
func lastRuneStart(s string) int {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return len(s)
}

// trimBlankLines drops the lines of s's start that hold only white space: JavaScript's
// s.replace(/^(\s*\n)+/, ""), which keeps the indentation of the first line with text.
func trimBlankLines(s string) string {
	cut := 0
	for i, r := range s {
		if r == '\n' {
			cut = i + 1
		} else if !jsSpace(r) {
			break
		}
	}
	return s[cut:]
}

// jsSpace reports whether JavaScript's \s and trim() count r as white space (its WhiteSpace and
// LineTerminator): unlike unicode.IsSpace, U+FEFF is and U+0085 is not.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\uFEFF', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// clipsStdout reports whether shown, the text before the note, is clip, the clipped stdout of
// the output saved, then a newline and a stderr the saved output ends with: the agent's shape
// when the CLI reports stderr apart from stdout (docs/agents.md). The Claude CLI usually merges
// stderr into stdout as the command writes them; then shown is clip, and this is not needed.
func clipsStdout(shown, clip, saved string) bool {
	rest, ok := strings.CutPrefix(shown, clip+"\n")
	stderr := strings.TrimRight(rest, "\n")
	return ok && clip != "" && stderr != "" && len(saved) >= claudeClipBytes+len(stderr) &&
		strings.HasSuffix(strings.TrimRight(saved, "\n"), stderr)
}

// expandTruncatedText is expandTruncated for the text of a content item,
// fenced (```console, as the agent and the terminal-output translation fence
// output) or not.
func (f *PersistedOutput) expandTruncatedText(text string) (string, bool) {
	open, body, closing := splitFence([]byte(text), "\n")
	full, ok := f.expandTruncated(string(body))
	if !ok {
		return "", false
	}
	return string(open) + full + string(closing), true
}

// shownContent is what the filter remembers of a call whose content it
// expanded: the digest of the content array the client was sent, which it
// now shows.
type shownContent struct{ sum [sha256.Size]byte }

// dedupe decides what to do with content, the content array of update u of
// m after expansion: when the client already shows exactly that content,
// because the filter sent it for the call before and nothing has replaced
// it since, it reports true, and the caller drops content from the update
// (an absent content leaves the call's content as it is). Otherwise it
// records what the client will show.
//
// The case it is for: the terminal-output translation may send a call's
// output more than once while it runs; expanded, each would carry the whole
// saved file. The final update is never left without it. It relies on the filter running last in the
// chain (cmd/acp-proxy puts it there), so that what it emits is what the
// client gets, and on seeing every message that replaces the call's content
// (forget).
func (f *PersistedOutput) dedupe(m *filters.Message, u *acp.ToolUpdate, content []byte) bool {
	sid := m.SessionID()
	if u.Final() {
		// The final update always carries what it shows: a client that
		// renders a call from each update's own content (agent-shell)
		// would end the call with nothing.
		f.shown.Remove(sid, u.ID)
		return false
	}
	sum := sha256.Sum256(content)
	if c := f.shown.Get(sid, u.ID); c != nil && c.sum == sum && u.SessionUpdate == "tool_call_update" {
		return true
	}
	f.shown.Remove(sid, u.ID)
	f.shown.Add(sid, u.ID, &shownContent{sum: sum})
	return false
}

// forget drops what the filter remembers of a call whose content m (which
// the filter does not change) replaces or ends: a tool update with content or
// a final status, or a permission request showing the call.
func (f *PersistedOutput) forget(m *filters.Message) {
	if f.shown.Len() == 0 || m.Dir != acp.AgentToClient {
		return
	}
	if u, ok := m.ToolUpdate(); ok {
		if u.Content != nil || u.Final() {
			f.shown.Remove(m.SessionID(), u.ID)
		}
		return
	}
	if call, ok := m.PermissionCall(); ok && call.ID != "" {
		f.shown.Remove(m.SessionID(), call.ID)
	}
}
