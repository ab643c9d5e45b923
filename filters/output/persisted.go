package output

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// PersistedOutput is the persisted-output filter (on with --terminal-output
// or --expand-persisted-output). Agents save a large output to a file and
// show the client only part of it: the Claude CLI's <persisted-output>
// preview (claude-agent-acp ≤ 0.23), its first 30,000 characters and a note
// (0.10x, truncated.go), opencode's truncated output (opencode.go). The
// filter cleans the tags out of what the client is shown and, with Expand,
// shows the saved file in its place when the file is safe to read
// (savedFile), sending an expanded content once while a call runs and again
// in its final update, which always carries what it shows. The exact
// rules are in docs/filters.md ("Persisted output").
type PersistedOutput struct {
	Expand bool
	// MaxBytes bounds the file read; zero means DefaultMaxCallOutputBytes.
	MaxBytes int64
	// ConfigDirs are the Claude config directories whose
	// projects/<slug>/<session>/tool-results/ files may be read; see
	// ClaudeConfigDirs.
	ConfigDirs []string
	// OpencodeDataDirs are opencode's data directories whose
	// tool-output/ files may be read; see OpencodeDataDirs.
	OpencodeDataDirs []string

	shown toolcall.List[shownContent] // calls whose content shows a saved file
	// reading is the message Apply is working on, whose Disk savedFile
	// reads through (only the agent→client pump sets it).
	reading *filters.Message
	// saver is the agent of the connection, as far as its saved outputs go:
	// only an agent's own preview of its own saved output is cleaned or
	// expanded, never text in another agent's output (savedBy).
	saver outputSaver
}

// outputSaver is an agent that saves large outputs and shows a part.
type outputSaver uint8

const (
	savesNothing  outputSaver = iota
	savesClaude               // the Claude CLI: <persisted-output> blocks, [Output truncated …] notes
	savesOpencode             // opencode and its fork kilo: ...output truncated...
)

// savedBy is the saver the agent of m's connection is, by the name it gave
// in initialize.
func savedBy(m *filters.Message) outputSaver {
	a, ok := m.Caps.Agent()
	name := strings.ToLower(a.Name)
	switch {
	case !ok:
		return savesNothing
	case strings.Contains(name, "claude"):
		return savesClaude
	case strings.Contains(name, "opencode") || name == "kilo":
		return savesOpencode
	}
	return savesNothing
}

var _ filters.Filter = (*PersistedOutput)(nil)

// ClaudeConfigDirs is where the Claude Code CLI run as the proxy's child
// keeps its files: $CLAUDE_CONFIG_DIR, and ~/.claude.
func ClaudeConfigDirs() []string {
	var dirs []string
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".claude"))
	}
	return dirs
}

// Name implements filters.Filter.
func (f *PersistedOutput) Name() string { return "persisted-output" }

var (
	persistedOpen  = "<persisted-output>\n"
	persistedClose = "\n</persisted-output>"
	// persistedTag is the block's start, which a line mentions when the
	// filter may have work in it (agents do not escape it).
	persistedTag       = persistedOpen[:len(persistedOpen)-1]
	quotedPersistedTag = []byte(persistedTag)
)

// Apply implements filters.Filter.
func (f *PersistedOutput) Apply(m *filters.Message, out filters.Emitter) error {
	if m.Dir != acp.AgentToClient {
		return nil
	}
	f.reading = m
	defer func() { f.reading = nil }()
	block := mentions(m.Raw, quotedPersistedTag)
	if !block && (!f.Expand || !mayShowNoteRaw(m.Raw)) {
		f.forget(m)
		return nil
	}
	f.saver = savedBy(m) // only for the messages that may show a saved output
	u, ok := m.ToolUpdate()
	if !ok || !block && !mayShowNote(&u) {
		f.forget(m)
		return nil
	}
	if f.Expand && f.saver == savesOpencode && u.Final() && mentions(u.Content, quotedOpencodeTag) {
		if content := f.expandOpencode(&u); content != nil {
			f.forget(m)
			msg, err := rawjson.Set(m.Raw, content, toolcall.At("content")...)
			if err != nil {
				return err
			}
			return out.Emit(m.Dir, msg)
		}
	}
	msg, err := f.cleanStrings(m.Raw, &u)
	if err != nil {
		return err
	}
	if u.Content == nil {
		f.forget(m)
		return out.Emit(m.Dir, msg)
	}
	content, changed, expanded, err := f.cleanContent(u.Content)
	if err != nil {
		return err
	}
	switch {
	case expanded && f.dedupe(m, &u, content):
		msg, _, err = rawjson.Delete(msg, toolcall.At("content")...)
	case expanded:
		msg, err = rawjson.Set(msg, content, toolcall.At("content")...)
	default:
		f.forget(m)
		if changed {
			msg, err = rawjson.Set(msg, content, toolcall.At("content")...)
		}
	}
	if err != nil {
		return err
	}
	return out.Emit(m.Dir, msg)
}

// cleanStrings cleans the string values of update u of msg that a client
// may show besides its content (rawOutput, streamed output), expanding the
// streamed output with Expand.
func (f *PersistedOutput) cleanStrings(msg []byte, u *acp.ToolUpdate) ([]byte, error) {
	type place struct {
		path   []string
		expand bool
	}
	places := []place{{toolcall.At("rawOutput"), false}}
	if u.Term.Output != nil {
		places = append(places, place{toolcall.At("_meta", acp.MetaTerminalOutput, "data"), f.Expand})
	}
	if u.Term.OutputDelta != nil {
		places = append(places, place{toolcall.At("_meta", acp.MetaTerminalOutputDelta, "data"), f.Expand})
	}
	var err error
	for _, p := range places {
		if msg, err = f.cleanAt(msg, p.path, p.expand); err != nil {
			return nil, err
		}
	}
	return msg, nil
}

// cleanAt cleans the string at path in msg, if it is one.
func (f *PersistedOutput) cleanAt(msg []byte, path []string, expand bool) ([]byte, error) {
	raw, ok := rawjson.Get(msg, path...)
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return msg, nil
	}
	s, err := rawjson.Unquote(raw)
	if err != nil {
		return nil, err
	}
	clean, ok, _ := f.clean(s, expand)
	if !ok && expand {
		clean, ok = f.expandTruncated(s)
	}
	if !ok {
		return msg, nil
	}
	return rawjson.Set(msg, rawjson.Quote(clean), path...)
}

// cleanContent cleans the text of the content items of type content/text,
// and with Expand expands them: changed reports a change, expanded that the
// content now shows a saved file.
func (f *PersistedOutput) cleanContent(content []byte) (out []byte, changed, expanded bool, err error) {
	out = []byte{'['}
	err = rawjson.Elements(content, func(n int, el []byte) bool {
		if n > 0 {
			out = append(out, ',')
		}
		if t, _ := rawjson.GetString(el, "type"); t == "content" {
			if t, _ := rawjson.GetString(el, "content", "type"); t == "text" {
				if text, ok := rawjson.GetString(el, "content", "text"); ok {
					clean, ok, exp := f.clean(text, f.Expand)
					if !ok && f.Expand {
						clean, ok = f.expandTruncatedText(text)
						exp = ok
					}
					if ok {
						if el2, err := rawjson.Set(el, rawjson.Quote(clean), "content", "text"); err == nil {
							el, changed, expanded = el2, true, expanded || exp
						}
					}
				}
			}
		}
		out = append(out, el...)
		return true
	})
	return append(out, ']'), changed, expanded, err
}

// clean replaces every <persisted-output> block of s; ok is false when
// there was none it could parse, and expanded reports that one shows its
// saved file.
func (f *PersistedOutput) clean(s string, expand bool) (out string, ok, expanded bool) {
	if f.saver != savesClaude {
		return "", false, false // another agent's output: what its command printed
	}
	// Only a block that is the whole text (inside the agent's fence) is the
	// agent's own: one in the middle of a command's output is the command's.
	_, body, _ := splitFence([]byte(s), "\n")
	whole := strings.HasPrefix(string(body), persistedOpen) && strings.HasSuffix(strings.TrimRight(string(body), "\n"), persistedClose) &&
		strings.Count(string(body), persistedOpen) == 1
	expand = expand && whole
	var b strings.Builder
	changed := false
	for {
		i := strings.Index(s, persistedOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], persistedClose)
		if j < 0 {
			break
		}
		block := s[i+len(persistedOpen) : i+j]
		repl, ok, exp := f.replacement(block, expand)
		if !ok {
			b.WriteString(s[:i+j+len(persistedClose)])
		} else {
			b.WriteString(s[:i])
			b.WriteString(repl)
			changed, expanded = true, expanded || exp
		}
		s = s[i+j+len(persistedClose):]
	}
	if !changed {
		return "", false, false
	}
	b.WriteString(s)
	return b.String(), true, expanded
}

// replacement is what a block shows instead: the preview and a note, or
// the saved file.
func (f *PersistedOutput) replacement(block string, expand bool) (repl string, ok, expanded bool) {
	header, rest, _ := strings.Cut(block, "\n")
	const saved = "Full output saved to: "
	k := strings.Index(header, saved)
	if k < 0 {
		return "", false, false
	}
	path := strings.TrimSpace(header[k+len(saved):])
	size := ""
	if _, after, ok := strings.Cut(header[:k], "("); ok {
		size, _, _ = strings.Cut(after, ")")
	}
	rest = strings.TrimPrefix(rest, "\n")
	preview := rest
	if strings.HasPrefix(rest, "Preview") {
		_, preview, _ = strings.Cut(rest, "\n")
	}
	if expand {
		if content, ok := f.savedFile(path, f.ConfigDirs, claudeToolResult); ok && strings.TrimSuffix(preview, "\n...") == claudePreview(content) {
			// Like the text the CLI shows for smaller output, without
			// its final newline.
			return strings.TrimSuffix(content, "\n"), true, true
		}
	}
	note := "[Output truncated: full output saved to " + path + "]"
	if size != "" {
		note = fmt.Sprintf("[Output truncated: %s in total, full output saved to %s]", size, path)
	}
	if preview == "" {
		return note, true, false
	}
	return preview + "\n" + note, true, false
}

// claudePreviewBytes is how much of a saved output the Claude CLI (≤ 0.23)
// previews in its <persisted-output> block: the first 2,000 bytes, cut back
// to the last newline within them.
const claudePreviewBytes = 2000

// claudePreview is the CLI's preview of the saved output content: the proof
// a block must show, whole, before the file is shown in its place. A file
// that fits the preview is never saved, so it has none.
func claudePreview(content string) string {
	if len(content) <= claudePreviewBytes {
		return "\x00" // matches no preview
	}
	i := strings.LastIndexByte(content[:claudePreviewBytes], '\n')
	if i <= 0 {
		return "\x00"
	}
	return content[:i]
}

// savedFile reads the file at path, only if it is the agent's own tool
// output: an absolute, clean path of the given shape under one of dirs,
// which with every symlink resolved is still of that shape under the
// resolved directory, and a regular file of at most MaxBytes.
func (f *PersistedOutput) savedFile(path string, dirs []string, shape func(dir, path string) bool) (string, bool) {
	return readSaved(f.reading, path, f.maxBytes(), func() (string, bool) { return f.readSavedFile(path, dirs, shape) })
}

func (f *PersistedOutput) readSavedFile(path string, dirs []string, shape func(dir, path string) bool) (string, bool) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return "", false
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	ok := false
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		rdir, err := filepath.EvalSymlinks(dir)
		if err == nil && shape(dir, path) && shape(rdir, resolved) {
			ok = true
			break
		}
	}
	if !ok {
		return "", false
	}
	max := f.maxBytes()
	file, err := os.Open(resolved)
	if err != nil {
		return "", false
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(file, max+1))
	if err != nil || int64(len(b)) > max {
		return "", false
	}
	return string(b), true
}

func (f *PersistedOutput) maxBytes() int64 {
	if f.MaxBytes <= 0 {
		return DefaultMaxCallOutputBytes
	}
	return f.MaxBytes
}

// claudeToolResult reports whether path is
// dir/projects/<slug>/<session>/tool-results/<file>, where the Claude CLI
// saves a large tool result.
func claudeToolResult(dir, path string) bool {
	parts, ok := relParts(dir, path)
	return ok && len(parts) == 5 && parts[0] == "projects" && parts[3] == "tool-results"
}

// relParts returns the elements of path relative to dir, when path is
// below dir and none of them is empty, "." or "..".
func relParts(dir, path string) ([]string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return nil, false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, false
		}
	}
	return parts, true
}

// Skips implements filters.Skipper: a line about no tool call shows no
// saved output, and is none of the calls whose shown output is kept
// (forget).
func (f *PersistedOutput) Skips(g filters.Glance) bool { return !g.Tool }
