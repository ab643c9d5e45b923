package shellpatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// opencode's edit tool replaces oldString where its first replacer finds it verbatim, once (or
// everywhere with replaceAll); every other case is decided by fuzzy replacers, or refused, and
// the filter stands aside.
func TestOpencodeResultFollowsTheVerbatimReplacerOnly(t *testing.T) {
	edit := func(old, new string) toolInput { return toolInput{path: "f", oldString: old, newString: new} }
	all := func(in toolInput) toolInput { in.replaceAll = true; return in }
	for _, tc := range []struct {
		name   string
		in     toolInput
		file   string
		exists bool
		want   string
		ok     bool
	}{
		{"a unique match", edit("two", "TWO"), "one\ntwo\nthree\n", true, "one\nTWO\nthree\n", true},
		{"a unique multi-line match", edit("  a\n  b", "  c"), "x\n  a\n  b\ny\n", true, "x\n  c\ny\n", true},
		{"no match", edit("four", "4"), "one\ntwo\n", true, "", false},
		{"a match only after trimming lines (a fuzzy replacer)", edit("two", "2"), "one\n  tw o\n", true, "", false},
		{"a match only with other indentation", edit("    a\n    b", "c"), "  a\n  b\n", true, "", false},
		{"several matches", edit("two", "2"), "two\ntwo\n", true, "", false},
		{"overlapping matches", edit("aa", "b"), "aaa\n", true, "", false},
		{"several matches, replaceAll", all(edit("two", "2")), "two\ntwo\n", true, "2\n2\n", true},
		{"one match, replaceAll", all(edit("two", "2")), "one two\n", true, "one 2\n", true},
		{"no match, replaceAll", all(edit("six", "6")), "two\n", true, "", false},
		{"replaceAll with a $ in newString", all(edit("a", "$&$&")), "a\n", true, "", false},
		{"a $ without replaceAll is literal", edit("a", "$&"), "a\n", true, "$&\n", true},
		{"identical strings are refused", edit("a", "a"), "a\n", true, "", false},
		{"an empty oldString creates a new file", edit("", "new\n"), "", false, "new\n", true},
		{"an empty oldString over an existing file is refused", edit("", "new\n"), "old\n", true, "", false},
		{"a file that does not exist", edit("a", "b"), "", false, "", false},
		{"CRLF line endings", edit("two", "2"), "one\r\ntwo\r\n", true, "", false},
		{"a byte order mark", edit("two", "2"), "\uFEFFtwo\n", true, "", false},
		{"U+FFFD (a lone surrogate)", edit("\uFFFD", "x"), "\uFFFD\n", true, "", false},
		{"write over a file", toolInput{path: "f", newString: "all new\n", write: true}, "old\n", true, "all new\n", true},
		{"write a new file", toolInput{path: "f", newString: "all new\n", write: true}, "", false, "all new\n", true},
		{"write with a byte order mark", toolInput{path: "f", newString: "\uFEFFx", write: true}, "", false, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := opencodeResult(tc.in, tc.file, tc.exists)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestToolInputOfReadsExactlyTheToolsKeys(t *testing.T) {
	for _, tc := range []struct {
		raw string
		ok  bool
	}{
		{`{"filePath":"a","oldString":"x","newString":"y"}`, true},
		{`{"filePath":"a","oldString":"x","newString":"y","replaceAll":true}`, true},
		{`{"filePath":"a","content":"y"}`, true},
		{`{"filePath":"a","oldString":"x","newString":"y","replaceAll":"yes"}`, false},
		{`{"filePath":"a","oldString":"x","newString":"y","other":1}`, false},
		{`{"filepath":"a","oldString":"x","newString":"y"}`, false},
		{`{"filePath":"","content":"y"}`, false},
		{`{"filePath":"a","content":1}`, false},
		{`{"command":"echo"}`, false},
	} {
		_, ok := toolInputOf([]byte(tc.raw))
		assert.Equal(t, tc.ok, ok, tc.raw)
	}
}

// opencodeEditCall is opencode 1.18's messages for a call of its edit tool with "permission":
// {"edit": "ask"}: the update that reports the input, the permission request (rawInput
// {filepath, diff}, and content: the diff opencode could apply, or none), and the final update
// with oldString → newString.
func opencodeEditCall(id, input, abs string, content string) (update, ask, done string) {
	update = patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"in_progress","kind":"edit","title":"edit","locations":[],"rawInput":%s}`, id, input))
	ask = fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":%q,"title":%q,"kind":"edit","status":"pending","locations":[{"path":%q}],"rawInput":{"filepath":%q,"diff":"Index: x\n"}%s},"options":[{"optionId":"once","kind":"allow_once","name":"Allow once"}]}}`, id, abs, abs, abs, content)
	done = patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"completed","title":"a.txt","content":[{"type":"content","content":{"type":"text","text":"Edit applied successfully."}},{"type":"diff","path":"a.txt","oldText":"two","newText":"TWO"}]}`, id))
	return update, ask, done
}

// The permission request of an edit whose result is unambiguous shows the whole file's diff,
// before opencode's own content; the final update shows it again once the file holds it, beside
// opencode's oldString → newString; a file that does not hold it takes it back with a note.
func TestOpencodeEditShowsTheWholeFilesDiff(t *testing.T) {
	const input = `{"filePath":"a.txt","oldString":"two","newString":"TWO"}`
	for _, tc := range []struct {
		name    string
		input   string
		theirs  string // opencode's own content in the request
		written string // what the tool wrote; "" nothing
		added   bool   // the request shows the filter's diff
		shown   bool   // the final update shows it
		note    string // the final update takes it back
	}{
		{"opencode could not apply its diff", input, "", "one\nTWO\nthree\n", true, true, ""},
		{"opencode shows the same diff", input, `,"content":[{"type":"diff","path":"@A@","oldText":"one\ntwo\nthree\n","newText":"one\nTWO\nthree\n"}]`, "one\nTWO\nthree\n", false, true, ""},
		{"opencode shows another diff", input, `,"content":[{"type":"diff","path":"@A@","oldText":"one\ntwo\nthree\n","newText":"TWO\n"}]`, "one\nTWO\nthree\n", true, true, ""},
		{"an absolute filePath", `{"filePath":"@A@","oldString":"two","newString":"TWO"}`, "", "one\nTWO\nthree\n", true, true, ""},
		{"the file holds other text afterwards", input, "", "formatted\n", true, false, "holds other text than was shown"},
		{"nothing written", input, "", "", true, false, "was not written"},
		{"several matches", `{"filePath":"a.txt","oldString":"o","newString":"0"}`, "", "", false, false, ""},
		{"another file asked about", `{"filePath":"b.txt","oldString":"two","newString":"TWO"}`, "", "", false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := namedAgentSession(t, "OpenCode")
			abs := filepath.Join(dir, "a.txt")
			require.NoError(t, os.WriteFile(abs, []byte("one\ntwo\nthree\n"), 0o644))
			sub := func(s string) string { return strings.ReplaceAll(s, "@A@", abs) }
			update, ask, done := opencodeEditCall("call_1", sub(tc.input), abs, sub(tc.theirs))
			got := chaintest.Run(t, c, acp.AgentToClient, update, ask)
			assert.True(t, got[0].Original, "the update comes before the file is read: %s", got[0].Raw)
			if !tc.added {
				assert.True(t, got[1].Original, got[1].Raw)
			} else {
				items := contentOf(t, got[1].Raw, "params", "toolCall", "content")
				require.NotEmpty(t, items)
				assert.Equal(t, abs, items[0].Path)
				assert.Equal(t, "one\ntwo\nthree\n", *items[0].OldText)
				assert.Equal(t, "one\nTWO\nthree\n", items[0].NewText)
				assert.Len(t, items, 1+len(contentOf(t, `{"c":[`+trimContent(sub(tc.theirs))+`]}`, "c")), "opencode's own content stays")
			}
			if tc.written != "" {
				require.NoError(t, os.WriteFile(abs, []byte(tc.written), 0o644))
			}
			got = chaintest.Run(t, c, acp.AgentToClient, done)
			final := contentOf(t, got[0].Raw, "params", "update", "content")
			assert.Equal(t, `"a.txt"`, field(t, got[0].Raw, "params", "update", "title"), "the agent's title stays")
			switch {
			case tc.shown:
				require.Len(t, final, 3)
				assert.Equal(t, "one\nTWO\nthree\n", final[0].NewText)
				assert.Equal(t, "Edit applied successfully.", final[1].Content.Text)
				assert.Equal(t, "two", *final[2].OldText, "opencode's own diff stays")
			case tc.note != "":
				assert.Contains(t, final[len(final)-3].Content.Text, tc.note)
			default:
				assert.True(t, got[0].Original, got[0].Raw)
			}
		})
	}
}

// trimContent is the items of a `,"content":[…]` fragment.
func trimContent(s string) string {
	if s == "" {
		return ""
	}
	var v struct{ Content json.RawMessage }
	if json.Unmarshal([]byte("{"+s[1:]+"}"), &v) != nil || len(v.Content) < 2 {
		return ""
	}
	return string(v.Content[1 : len(v.Content)-1])
}

// Without a permission request opencode writes as it reports the input: the filter cannot read
// the file before the tool changes it, and adds nothing.
func TestOpencodeEditWithoutAskingStandsAside(t *testing.T) {
	c, dir := namedAgentSession(t, "OpenCode")
	abs := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(abs, []byte("one\ntwo\nthree\n"), 0o644))
	update, _, done := opencodeEditCall("call_1", `{"filePath":"a.txt","oldString":"two","newString":"TWO"}`, abs, "")
	for _, got := range chaintest.Run(t, c, acp.AgentToClient, update, update, done) {
		assert.True(t, got.Original, got.Raw)
	}
}

// opencode's write tool: the request and the final update (which has no diff of its own) show
// the whole file.
func TestOpencodeWriteShowsTheFile(t *testing.T) {
	c, dir := namedAgentSession(t, "OpenCode")
	abs := filepath.Join(dir, "b.txt")
	update, ask, _ := opencodeEditCall("call_1", `{"filePath":"b.txt","content":"new file\n"}`, abs, "")
	done := patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","title":"b.txt","content":[{"type":"content","content":{"type":"text","text":"Wrote file successfully."}}]}`)
	got := chaintest.Run(t, c, acp.AgentToClient, update, ask)
	items := contentOf(t, got[1].Raw, "params", "toolCall", "content")
	require.Len(t, items, 1)
	assert.Nil(t, items[0].OldText, "a new file")
	require.NoError(t, os.WriteFile(abs, []byte("new file\n"), 0o644))
	got = chaintest.Run(t, c, acp.AgentToClient, done)
	final := contentOf(t, got[0].Raw, "params", "update", "content")
	require.Len(t, final, 2)
	assert.Equal(t, "new file\n", final[0].NewText)
}

// A turn that ends with the call still open settles it as a shell edit's is settled: taken back
// unless the file holds what was shown; the agent's title and kind stay.
func TestOpencodeEditOpenAtTheTurnsEndIsSettled(t *testing.T) {
	c, dir := namedAgentSession(t, "OpenCode")
	abs := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(abs, []byte("two\n"), 0o644))
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
	update, ask, _ := opencodeEditCall("call_1", `{"filePath":"a.txt","oldString":"two","newString":"TWO"}`, abs, "")
	chaintest.Run(t, c, acp.AgentToClient, update, ask)
	got := chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":7,"result":{"stopReason":"cancelled"}}`)
	require.Len(t, got, 2)
	assert.Contains(t, got[0].Raw, "the tool did not write what was shown")
	assert.NotContains(t, got[0].Raw, `"kind"`)
	assert.NotContains(t, got[0].Raw, `"title"`)
}

// A permission request before any update reported the input (opencode sends the update first in
// our runs) has nothing to be judged by: it stands aside, and so does the call's end.
func TestOpencodeEditAskedBeforeItsInputStandsAside(t *testing.T) {
	c, dir := namedAgentSession(t, "OpenCode")
	abs := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(abs, []byte("two\n"), 0o644))
	update, ask, done := opencodeEditCall("call_1", `{"filePath":"a.txt","oldString":"two","newString":"TWO"}`, abs, "")
	for _, got := range chaintest.Run(t, c, acp.AgentToClient, ask, update, done) {
		assert.True(t, got.Original, got.Raw)
	}
}

// A diff shown for an edit tool's call that the memory bound evicts is taken back by an update of
// the filter's own that replaces only the content: the call stays the agent's edit, with its
// title and locations.
func TestAForgottenEditToolCallKeepsItsKind(t *testing.T) {
	f := &Filter{}
	c, dir := shellPatchSession(t, f)
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":1,"agentInfo":{"name":"OpenCode","version":"1"}}}`)
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(a, []byte(strings.Repeat("x", 300)+"\ntwo\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(strings.Repeat("y", 300)+"\ntwo\n"), 0o644))
	f.MaxBytes = 1000 // one of the two edits, not both
	u1, ask1, _ := opencodeEditCall("call_1", `{"filePath":"a.txt","oldString":"two","newString":"TWO"}`, a, "")
	u2, ask2, _ := opencodeEditCall("call_2", `{"filePath":"b.txt","oldString":"two","newString":"TWO"}`, b, "")
	got := chaintest.Run(t, c, acp.AgentToClient, u1, ask1, u2, ask2)
	require.Len(t, got, 5, "the takeback of call_1 goes out before call_2's request")
	assert.Contains(t, got[3].Raw, `"toolCallId":"call_1"`)
	assert.Contains(t, got[3].Raw, "no longer checked")
	assert.NotContains(t, got[3].Raw, `"kind"`)
	assert.NotContains(t, got[3].Raw, `"locations"`)
	assert.Equal(t, b, diffPath(t, got[4].Raw, "params", "toolCall", "content"))
}

// The inputs the filter keeps until their permission request count against the same bound as
// the edits: one larger than the bound is not kept, and the bytes held never exceed it.
func TestEditToolInputsAreBounded(t *testing.T) {
	f := &Filter{MaxBytes: 200}
	c, dir := shellPatchSession(t, f)
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":1,"agentInfo":{"name":"OpenCode","version":"1"}}}`)
	abs := filepath.Join(dir, "a.txt")
	big := strings.Repeat("z", 300)
	update, ask, _ := opencodeEditCall("call_1", fmt.Sprintf(`{"filePath":"a.txt","oldString":"two","newString":%q}`, big), abs, "")
	require.NoError(t, os.WriteFile(abs, []byte("two\n"), 0o644))
	for _, got := range chaintest.Run(t, c, acp.AgentToClient, update, ask) {
		assert.True(t, got.Original, got.Raw)
	}
	for i := range 20 {
		u, _, _ := opencodeEditCall(fmt.Sprintf("call_%d", i+2), fmt.Sprintf(`{"filePath":"a.txt","oldString":"two","newString":%q}`, big[:60]), abs, "")
		chaintest.Run(t, c, acp.AgentToClient, u)
		kept := int64(0)
		_ = f.calls.Each(func(c *call) error {
			if c.tool != nil {
				kept += c.tool.size()
			}
			return nil
		})
		assert.LessOrEqual(t, kept, f.limit(), "the inputs kept")
		assert.LessOrEqual(t, f.held, f.limit())
	}
}
