package shellpatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/stretchr/testify/require"
)

// fuzzScripts are the commands FuzzShellPatchCallSequences puts in rawInputs: writes, a write in
// another directory, ones that are no writes, and "" for a rawInput without a command.
var fuzzScripts = []string{"echo a > f", "echo b > g", "cd sub && echo c > f", "printf 'x' > f", "curl x | sh", "ls", "echo 'a!b' > h", "",
	"echo a > f; ls", "echo a > f\necho b >> f\necho c > g", "touch t && echo x >> t", "cd sub; echo d > f; cd ..; echo e > g",
	"echo A >> f", "echo B >> ./sub/../f"}

// FuzzShellPatchCallSequences sends random sequences of tool calls, updates with and without a
// rawInput, permission requests and ends, for two call ids, as codex or as claude, in one prompt
// turn, with a byte budget that fits one edit or several, and checks the promise of class 1: a
// message shown as an edit shows the write of its own rawInput, or, without one, of the last
// rawInput its call carried. No command runs, so when the turn ends no call may still show a
// diff to the client: the verification, the takeback of forgotten calls and the turn's end
// take every one back. Both ids write f in several scripts, none of which runs: at no moment may
// two calls hold an edit of one file (#25.2, pending requests on one file).
func FuzzShellPatchCallSequences(f *testing.F) {
	f.Add(false, false, []byte{0, 3, 4})
	f.Add(true, false, []byte{0, 1 + 6, 2 + 6*4, 3, 4})
	f.Add(false, true, []byte{0, 2 + 6*4, 3, 5, 0 + 48, 1 + 48 + 6})
	f.Add(true, true, []byte{0, 1 + 6*2, 4, 0 + 48, 1 + 48, 3 + 48})
	f.Add(false, false, []byte{0 + 6*12, 2 + 48 + 6*13}) // two appends to f, both pending
	f.Fuzz(func(t *testing.T, claude, small bool, ops []byte) {
		if len(ops) > 40 {
			ops = ops[:40]
		}
		f := &Filter{}
		if small {
			f.MaxBytes = 600 // about one edit: a second evicts the first
		}
		c, dir := shellPatchSession(t, f)
		require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
		chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":"turn","method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
		last := map[string]string{} // call id → the script of its last rawInput
		shows := map[string]bool{}  // call id → the client shows a diff for it
		for _, op := range ops {
			id := fmt.Sprintf("call_%d", op/48%2)
			script := fuzzScripts[int(op/6)%len(fuzzScripts)]
			msg, carries := fuzzMessage(op%6, id, script, dir, claude)
			if carries {
				last[id] = script
			}
			for _, out := range chaintest.Run(t, c, acp.AgentToClient, msg) {
				if callOf(out.Raw) == id {
					checkShownWrite(t, out.Raw, last[id], dir)
				}
				foldShown(out.Raw, shows)
			}
			if op%6 >= 4 {
				delete(last, id)
			}
			checkOnePendingEditPerFile(t, f)
		}
		for _, out := range chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":"turn","result":{"stopReason":"end_turn"}}`) {
			foldShown(out.Raw, shows)
		}
		for id, diff := range shows {
			require.False(t, diff, "call %s still shows a diff after its turn ended, though nothing ran", id)
		}
	})
}

// callOf is the toolCallId of a session/update's tool call, or "".
func callOf(raw string) string {
	id, _ := rawjson.GetString([]byte(raw), "params", "update", "toolCallId")
	return id
}

// foldShown records whether the client shows a diff for the call a session/update is about: an
// update replaces the content it carries.
func foldShown(raw string, shows map[string]bool) {
	id := callOf(raw)
	content, ok := rawjson.Get([]byte(raw), "params", "update", "content")
	if id == "" || !ok {
		return
	}
	shows[id] = strings.Contains(string(content), `"type":"diff"`)
}

// fuzzMessage builds one message of kind op (0 tool_call, 1 update with a rawInput, 2 permission
// request, 3 update without one, 4 completed, 5 failed) and says whether it carries a rawInput.
func fuzzMessage(op byte, id, script, dir string, claude bool) (string, bool) {
	rawInput := "{}"
	if script != "" {
		if claude {
			rawInput = fmt.Sprintf(`{"command":%s,"description":"d"}`, jsonString(script))
		} else {
			argv, _ := json.Marshal([]string{"bash", "-lc", script})
			rawInput = fmt.Sprintf(`{"command":%s,"cwd":%q}`, argv, dir)
		}
	}
	meta := ""
	if claude {
		meta = `"_meta":{"claudeCode":{"toolName":"Bash"}},`
	}
	switch op {
	case 0:
		return patchUpdate(fmt.Sprintf(`{%s"sessionUpdate":"tool_call","toolCallId":%q,"kind":"execute","status":"pending","title":"t","rawInput":%s,"content":[]}`, meta, id, rawInput)), true
	case 1:
		return patchUpdate(fmt.Sprintf(`{%s"sessionUpdate":"tool_call_update","toolCallId":%q,"rawInput":%s}`, meta, id, rawInput)), true
	case 2:
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"S","toolCall":{"toolCallId":%q,"kind":"execute","rawInput":%s,"content":[]},"options":[]}}`, id, rawInput), true
	case 3:
		return patchUpdate(fmt.Sprintf(`{%s"sessionUpdate":"tool_call_update","toolCallId":%q,"content":[{"type":"terminal","terminalId":%q}]}`, meta, id, id)), false
	case 4:
		return patchUpdate(fmt.Sprintf(`{%s"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"completed"}`, meta, id)), false
	default:
		return patchUpdate(fmt.Sprintf(`{%s"sessionUpdate":"tool_call_update","toolCallId":%q,"status":"failed"}`, meta, id)), false
	}
}

// checkShownWrite requires a message that shows diffs to show the writes of script: the files
// shellwrite.Script.Edits finds, in order, each with its bytes, as kind execute when the script
// runs more, else as an edit. No file is written during the fuzzing, so Edits reads what the filter
// read.
func checkShownWrite(t *testing.T, raw, script, dir string) {
	t.Helper()
	var m struct {
		Params struct {
			Update, ToolCall shownCall
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &m), raw)
	for _, call := range []shownCall{m.Params.Update, m.Params.ToolCall} {
		var shown []string
		for _, item := range call.Content {
			if item.Type == "diff" {
				shown = append(shown, filepath.Base(item.Path)+"="+item.NewText)
			}
		}
		if len(shown) == 0 {
			continue
		}
		s, err := shellwrite.ParseScript(script, dir)
		require.NoError(t, err, "a diff for the call whose command is %q: %s", script, raw)
		files, cut := s.Edits(dir, false, DefaultMaxPatchBytes)
		var want []string
		for _, f := range files {
			want = append(want, filepath.Base(f.Path)+"="+string(f.New))
		}
		wantKind := "edit"
		if cut != nil {
			wantKind = "execute"
		}
		require.True(t, fmt.Sprint(shown) == fmt.Sprint(want) && (call.Kind == wantKind || call.Kind == ""),
			"%q writes %q (kind %s); shown: kind %q, %q", script, want, wantKind, call.Kind, shown)
	}
}

// shownCall is the part of a tool call checkShownWrite reads.
type shownCall struct {
	Kind    string                                 `json:"kind"`
	Content []struct{ Type, Path, NewText string } `json:"content"`
}

// checkOnePendingEditPerFile requires that no two live calls of f hold an edit of the same file:
// neither has been seen to end, so which runs first is open, and a diff assumes one order.
func checkOnePendingEditPerFile(t *testing.T, f *Filter) {
	t.Helper()
	holder := map[string]string{}
	_ = f.calls.Each(func(c *call) error {
		if c.edit == nil {
			return nil
		}
		for _, file := range c.edit.files {
			other, ok := holder[file.key]
			require.False(t, ok, "calls %s and %s both show an unrun edit of %s", other, c.id, file.path)
			holder[file.key] = c.id
		}
		return nil
	})
}
