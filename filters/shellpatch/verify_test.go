package shellpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// contentItem is a content item as the tests read it.
type contentItem struct {
	Type    string  `json:"type"`
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
	Content struct {
		Text string `json:"text"`
	} `json:"content"`
}

func contentOf(t *testing.T, raw string, path ...string) []contentItem {
	t.Helper()
	var items []contentItem
	require.NoError(t, json.Unmarshal([]byte(field(t, raw, path...)), &items), raw)
	return items
}

// Every shown write is checked against the file when its call ends. A file that does not hold
// what was shown, or a call that failed, takes the edit back: the file now against its oldText
// (no diff when it was not written) and a note saying the command did not write what was shown.
func TestAShownWriteIsVerifiedWhenItsCallEnds(t *testing.T) {
	const done = `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":%q,"content":[{"type":"terminal","terminalId":"c1"}]}`
	for _, tc := range []struct {
		name   string
		before string // the file before the command; "" none
		status string
		after  func(t *testing.T, path string) // what the command did to the file
		kind   string
		diff   string // the diff's newText shown at the end; "" no diff
		note   string // in the note; "" the edit stands
	}{
		{"written as shown", "", "completed", writeFile("new\n"), "edit", "new\n", ""},
		{"written as shown over a file", "old\n", "completed", writeFile("new\n"), "edit", "new\n", ""},
		{"not written: no file", "", "completed", nil, "execute", "", "does not exist"},
		{"not written: the old file", "old\n", "completed", nil, "execute", "", "was not written"},
		{"other text", "old\n", "completed", writeFile("hooked\n"), "edit", "hooked\n", "holds other text than was shown"},
		{"failed, nothing written", "", "failed", nil, "execute", "", "the command failed"},
		{"failed after writing", "", "failed", writeFile("new\n"), "edit", "new\n", "the command failed"},
		{"a symlink swapped in", "old\n", "completed", func(t *testing.T, path string) {
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.Symlink("/etc/hostname", path))
		}, "execute", "", "cannot be read back"},
		{"not text", "", "completed", writeFile("\x00\xff"), "execute", "", "cannot be read back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			f := &Filter{Log: slog.New(slog.NewJSONHandler(&log, nil))}
			c, dir := shellPatchSession(t, f)
			path := filepath.Join(dir, "f")
			if tc.before != "" {
				require.NoError(t, os.WriteFile(path, []byte(tc.before), 0o644))
			}
			got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "printf 'new\\n' > f", dir))
			require.False(t, got[0].Original)
			if tc.after != nil {
				tc.after(t, path)
			}
			got = chaintest.Run(t, c, acp.AgentToClient, patchUpdate(fmt.Sprintf(done, tc.status)))
			require.Len(t, got, 1)
			if tc.note != "" { // a takeback restates every member
				assert.Equal(t, `"`+tc.kind+`"`, field(t, got[0].Raw, "params", "update", "kind"))
				assert.Equal(t, `"printf 'new\\n' > f"`, field(t, got[0].Raw, "params", "update", "title"), "the command stays")
			}
			items := contentOf(t, got[0].Raw, "params", "update", "content")
			var diffs, notes []contentItem
			for _, it := range items {
				if it.Type == "diff" {
					diffs = append(diffs, it)
				} else if strings.HasPrefix(it.Content.Text, "acp-proxy:") {
					notes = append(notes, it)
				}
			}
			if tc.diff == "" {
				assert.Empty(t, diffs)
			} else {
				require.Len(t, diffs, 1)
				assert.Equal(t, tc.diff, diffs[0].NewText)
				assert.Equal(t, tc.before == "", diffs[0].OldText == nil, "the recorded oldText")
				if tc.before != "" {
					assert.Equal(t, tc.before, *diffs[0].OldText)
				}
			}
			counts := f.Counts()
			if tc.note == "" {
				assert.Empty(t, notes)
				assert.Equal(t, int64(1), counts["editsVerified"])
				assert.Empty(t, log.String())
				return
			}
			assert.Contains(t, log.String(), `"level":"WARN"`)
			assert.Contains(t, log.String(), `"toolCallId":"c1"`)
			require.Len(t, notes, 1, got[0].Raw)
			assert.Contains(t, notes[0].Content.Text, "did not write what was shown")
			assert.Contains(t, notes[0].Content.Text, tc.note)
			assert.Equal(t, int64(1), counts["editsTakenBack"])
		})
	}
}

func writeFile(content string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, []byte(content), 0o644)) }
}

// A turn that ends with a call shown as an edit still open ends the call: cancelled. Unless its
// file holds what was shown, an update of the filter's own takes the edit back, before the
// response that ends the turn.
func TestATurnEndingWithAnOpenEditSettlesIt(t *testing.T) {
	for _, written := range []bool{false, true} {
		t.Run(fmt.Sprintf("written=%v", written), func(t *testing.T) {
			c, dir := shellPatchSession(t, &Filter{})
			chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
			require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "echo hi > f", dir))[0].Original)
			if written {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("hi\n"), 0o644))
			}
			response := `{"jsonrpc":"2.0","id":5,"result":{"stopReason":"cancelled"}}`
			got := chaintest.Run(t, c, acp.AgentToClient, response)
			assert.Equal(t, response, got[len(got)-1].Raw, "the response goes on, last")
			if written {
				require.Len(t, got, 1, "the edit is true: nothing to take back")
				return
			}
			require.Len(t, got, 2)
			assert.Equal(t, `"tool_call_update"`, field(t, got[0].Raw, "params", "update", "sessionUpdate"))
			assert.Equal(t, `"c1"`, field(t, got[0].Raw, "params", "update", "toolCallId"))
			assert.Equal(t, `"execute"`, field(t, got[0].Raw, "params", "update", "kind"))
			assert.Contains(t, field(t, got[0].Raw, "params", "update", "content"), "did not write what was shown")
			// The call is over: a later update passes as it is.
			late := patchUpdate(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`)
			assert.True(t, chaintest.Run(t, c, acp.AgentToClient, late)[0].Original)
		})
	}
}

// Second review, class 8: a call whose edit the filter can no longer keep (the byte budget, the
// call count) is taken back at once by an update of the filter's own; a later command of that
// call then passes as the agent sent it, and the client no longer shows the old edit.
func TestAForgottenCallIsTakenBack(t *testing.T) {
	t.Run("the byte budget", func(t *testing.T) {
		const limit = 10 << 10
		f := &Filter{MaxBytes: limit}
		c, dir := shellPatchSession(t, f)
		for _, name := range []string{"a", "b"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("x", limit*6/10)), 0o644))
		}
		require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("1", "echo new > a", dir))[0].Original)
		got := chaintest.Run(t, c, acp.AgentToClient, codexCall("2", "echo new > b", dir))
		require.Len(t, got, 2, "call 1's takeback, then call 2")
		assertTakenBack(t, got[0].Raw, "1")
		assert.Contains(t, field(t, got[1].Raw, "params", "update", "content"), `"diff"`)
		argv, _ := json.Marshal([]string{"bash", "-lc", "curl x | sh"})
		later := patchUpdate(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":"1","rawInput":{"command":%s,"cwd":%q}}`, argv, dir))
		assert.True(t, chaintest.Run(t, c, acp.AgentToClient, later)[0].Original)
		assert.Equal(t, int64(1), f.Counts()["editsForgotten"])
	})
	t.Run("the call count", func(t *testing.T) {
		c, dir := shellPatchSession(t, &Filter{})
		require.False(t, chaintest.Run(t, c, acp.AgentToClient, codexCall("first", "echo new > a", dir))[0].Original)
		for i := range maxShellPatchCalls - 1 {
			chaintest.Run(t, c, acp.AgentToClient, patchUpdate(fmt.Sprintf(`{"_meta":{"claudeCode":{"toolName":"Read"}},"toolCallId":"r%d","sessionUpdate":"tool_call","title":"Read","kind":"read","rawInput":{}}`, i)))
		}
		got := chaintest.Run(t, c, acp.AgentToClient, patchUpdate(`{"_meta":{"claudeCode":{"toolName":"Read"}},"toolCallId":"last","sessionUpdate":"tool_call","title":"Read","kind":"read","rawInput":{}}`))
		require.Len(t, got, 2)
		assertTakenBack(t, got[0].Raw, "first")
	})
}

func assertTakenBack(t *testing.T, raw, id string) {
	t.Helper()
	assert.Equal(t, `"`+id+`"`, field(t, raw, "params", "update", "toolCallId"))
	assert.Equal(t, `"execute"`, field(t, raw, "params", "update", "kind"))
	assert.Equal(t, `[]`, field(t, raw, "params", "update", "locations"))
	assert.Contains(t, field(t, raw, "params", "update", "content"), "no longer shown as an edit")
	assert.NotContains(t, raw, `"diff"`)
}
