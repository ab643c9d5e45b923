package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/stretchr/testify/require"
)

// FuzzOpencodeEditTool sends an edit call of opencode's (its input, the permission request, the
// end) over random file text and strings, and checks what the filter may do: leave a message
// alone, or add diff items before the agent's content and change nothing else; a diff added to
// the request shows the file as it is and the text opencode's verbatim replacer makes of it,
// which is the file with one span replaced (or every occurrence, with replaceAll).
func FuzzOpencodeEditTool(f *testing.F) {
	f.Add("one\ntwo\nthree\n", "two", "TWO", false)
	f.Add("aaa", "aa", "b", false)
	f.Add("a a a", "a", "$&", true)
	f.Add("x\r\ny", "x", "z", false)
	f.Fuzz(func(t *testing.T, file, oldString, newString string, replaceAll bool) {
		c, dir := namedAgentSession(t, "OpenCode")
		abs := filepath.Join(dir, "a.txt")
		require.NoError(t, os.WriteFile(abs, []byte(file), 0o644))
		input := fmt.Sprintf(`{"filePath":"a.txt","oldString":%s,"newString":%s,"replaceAll":%v}`, jsonString(oldString), jsonString(newString), replaceAll)
		update, ask, done := opencodeEditCall("call_1", input, abs, "")
		got := chaintest.Run(t, c, acp.AgentToClient, update, ask, done)
		for i, msg := range []string{update, ask, done} {
			if got[i].Original {
				continue
			}
			path := []string{"params", "update"}
			if i == 1 {
				path = []string{"params", "toolCall"}
			}
			checkOnlyContentAdded(t, msg, got[i].Raw, path)
		}
		if got[1].Original {
			return
		}
		items := contentOf(t, got[1].Raw, "params", "toolCall", "content")
		d := items[0]
		require.True(t, d.OldText != nil && *d.OldText == file && d.Path == abs, "the request shows %s as %v; it holds %q", d.Path, d.OldText, file)
		i := strings.Index(file, oldString)
		want := file
		switch {
		case oldString == "" || i < 0:
			require.Fail(t, "an edit shown for a text found nowhere", "%q in %q", oldString, file)
		case replaceAll:
			want = strings.ReplaceAll(file, oldString, newString)
		default:
			want = file[:i] + newString + file[i+len(oldString):]
			require.Equal(t, i, strings.LastIndex(file, oldString), "an edit shown for %q, found more than once in %q", oldString, file)
		}
		require.Equal(t, want, d.NewText, "newText")
	})
}

// checkOnlyContentAdded checks that out is in with the call at path's content replaced by
// diff items followed by the content in had.
func checkOnlyContentAdded(t *testing.T, in, out string, path []string) {
	t.Helper()
	content := append(append([]string(nil), path...), "content")
	theirs, _ := rawjson.Get([]byte(in), content...)
	ours, ok := rawjson.Get([]byte(out), content...)
	require.True(t, ok, "no content in %s", out)
	restored, err := rawjson.Set([]byte(out), theirs, content...)
	if len(theirs) == 0 {
		restored, _, err = rawjson.Delete([]byte(out), content...)
	}
	require.NoError(t, err)
	require.Equal(t, in, string(restored), "more than the content changed:\n in %s\nout %s", in, out)
	added := 0
	for _, it := range contentOf(t, `{"c":`+string(ours)+`}`, "c") {
		if it.Type != "diff" && !strings.HasPrefix(it.Content.Text, "acp-proxy: ") {
			break
		}
		added++
	}
	require.True(t, added > 0 && strings.HasSuffix(string(ours), strings.TrimPrefix(string(theirs), "[")),
		"the content %s is not the proxy's items followed by the agent's %s", ours, theirs)
}
