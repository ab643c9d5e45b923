package output

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// opencode (1.18) ends a shell call whose output is over 2,000 lines or
// 50 KB with a final update whose one text item shows
//
//	...output truncated...
//
//	Full output saved to: /home/u/.local/share/opencode/tool-output/tool_<id>
//
//	<the last 2,000 lines or 50 KB of the output>
//
// and whose rawOutput is {output: that text, metadata: {output, exit,
// truncated: true, outputPath}}, where metadata.output is the whole output
// while it is at most 30,000 characters, else "...\n\n" and its last 30,000
// (docs/agents.md). The text is clean already; with Expand, it is replaced
// by the whole output: metadata.output when it is whole, else the saved
// file when it is safe to read (savedFile, with opencodeToolOutput's
// shape), and only when that ends with exactly the tail the text shows.

const (
	opencodeTruncated = "...output truncated...\n\nFull output saved to: "
	// opencodeClipped starts a metadata.output that is not whole.
	opencodeClipped = "...\n\n"
)

var quotedOpencodeTag = []byte("...output truncated...")

// OpencodeDataDirs is where opencode run as the proxy's child keeps its
// files (tool-output/ among them): $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode.
func OpencodeDataDirs() []string {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return []string{filepath.Join(d, "opencode")}
	}
	if h, err := os.UserHomeDir(); err == nil {
		return []string{filepath.Join(h, ".local", "share", "opencode")}
	}
	return nil
}

// opencodeToolOutput reports whether path is dir/tool-output/<file>.
func opencodeToolOutput(dir, path string) bool {
	parts, ok := relParts(dir, path)
	return ok && len(parts) == 2 && parts[0] == "tool-output"
}

// expandOpencode returns the content showing the whole output in place of
// opencode's truncated text, or nil.
func (f *PersistedOutput) expandOpencode(u *acp.ToolUpdate) []byte {
	text, ok := snapshotText(u.Content)
	if !ok || !u.Final() {
		return nil
	}
	shown, err := rawjson.Unescape(text)
	if err != nil || !strings.HasPrefix(shown, opencodeTruncated) {
		return nil
	}
	path, tail, ok := strings.Cut(shown[len(opencodeTruncated):], "\n\n")
	if !ok || strings.Contains(path, "\n") {
		return nil
	}
	whole, ok := rawjson.GetString(u.RawOutput, "metadata", "output")
	if !ok || strings.HasPrefix(whole, opencodeClipped) || !strings.HasSuffix(whole, tail) {
		if whole, ok = f.savedFile(path, f.OpencodeDataDirs, opencodeToolOutput); !ok || !strings.HasSuffix(whole, tail) {
			return nil
		}
	}
	return append(appendTextItem([]byte{'['}, rawjson.Quote(whole)), ']')
}
