package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

func redacted(t *testing.T, trace string) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, Redact(NewReader(strings.NewReader(trace)), &out))
	return out.String()
}

// What Redact keeps and what it replaces, record by record.
func TestRedactKeepsTheStructureAndReplacesTheText(t *testing.T) {
	for _, c := range []struct{ name, record, want string }{
		{"a prompt: method, id and session kept, its text replaced",
			`{"t":0.1,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"fix my secret.go"}]}}}`,
			`{"t":0.100000,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"xxx xx xxxxxxxxx"}]}}}`},
		{"a tool call: kind, status and ids kept; title, command and output replaced, line breaks and sizes kept",
			`{"t":1,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","kind":"execute","status":"completed","title":"cat ~/.ssh/id_rsa","rawInput":{"command":["bash","-lc","cat ~/.ssh/id_rsa"]},"rawOutput":{"exit_code":0},"_meta":{"terminal_output":{"terminal_id":"call_1","data":"KEY\r\nÉ\n"}}}}}}`,
			`{"t":1.000000,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","kind":"execute","status":"completed","title":"xxx xxxxxxxxxxxxx","rawInput":{"command":["xxxx","xxx","xxx xxxxxxxxxxxxx"]},"rawOutput":{"exit_code":0},"_meta":{"terminal_output":{"terminal_id":"call_1","data":"xxx\r\nxx\n"}}}}}}`},
		{"the agent's own name and version kept, its other texts replaced",
			`{"t":0,"dir":"agent->client","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","title":"Codex","version":"0.13.0"},"authMethods":[{"id":"chatgpt","name":"Login","description":"Use ChatGPT"}]}}}`,
			`{"t":0.000000,"dir":"agent->client","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","title":"Codex","version":"0.13.0"},"authMethods":[{"id":"chatgpt","name":"xxxxx","description":"xxx xxxxxxx"}]}}}`},
		{"a member named by a path replaced",
			`{"t":0,"dir":"agent->client","msg":{"changes":{"/home/me/a.go":{"type":"add"}}}}`,
			`{"t":0.000000,"dir":"agent->client","msg":{"changes":{"xxxxxxxxxxxxx":{"type":"add"}}}}`},
		{"what the filters sent instead, and a line that is not JSON",
			`{"t":0,"dir":"agent->client","text":"Error: /home/me","eol":false,"out":[{"title":"ok"},"raw text"]}`,
			`{"t":0.000000,"dir":"agent->client","text":"xxxxxx xxxxxxxx","eol":false,"out":[{"title":"xx"},"xxx xxxx"]}`},
		{"bytes that are not UTF-8",
			`{"t":0,"dir":"agent->client","b64":"/wAK"}`,
			`{"t":0.000000,"dir":"agent->client","text":"xx\n"}`},
		{"a read: kind and numbers kept, path, texts and error replaced",
			`{"t":0.2,"dir":"agent->client","read":{"kind":"write-target","path":"/p/a","args":{"script":"echo hi > a","maxBytes":64},"answer":{"Exists":true,"Old":"secret\n"}}}`,
			`{"t":0.200000,"dir":"agent->client","read":{"kind":"write-target","path":"xxxx","args":{"script":"xxxx xx x x","maxBytes":64},"answer":{"Exists":true,"Old":"xxxxxx\n"}}}`},
		{"a connection: version, flags and the agent's program kept, paths and prompts replaced",
			`{"t":0,"connection":{"started":"2026-11-25T21:00:00.123Z","agent":["/home/me/bin/acpx","exec","my prompt","--x=/p"],"proxy":"v0.3.0","args":["--record","/home/me/s.jsonl","--deltas","--coalesce-interval","50ms","--max-output-bytes=4MiB"]}}`,
			`{"t":0.000000,"connection":{"started":"2026-11-25T21:00:00.123Z","agent":["acpx","xxxx","xx xxxxxx","--x=xx"],"proxy":"v0.3.0","args":["--record","xxxxxxxxxxxxxxxx","--deltas","--coalesce-interval","50ms","--max-output-bytes=4MiB"]}}`},
		{"a replay's marks kept",
			`{"t":0,"dir":"agent->client","msg":{"a":"b"},"src":4,"timer":true}`,
			`{"t":0.000000,"dir":"agent->client","msg":{"a":"x"},"src":4,"timer":true}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want+"\n", redacted(t, c.record+"\n"))
		})
	}
}

// protocolKeys name the members whose values are the protocol's own names
// (methods, kinds, statuses, ids), the only texts a redacted trace may
// share with the original besides its member names and the peers' names.
var protocolKeys = map[string]bool{
	"jsonrpc": true, "method": true, "id": true, "sessionId": true, "toolCallId": true,
	"terminalId": true, "terminal_id": true, "sessionUpdate": true, "kind": true,
	"status": true, "type": true, "stopReason": true, "optionId": true, "outcome": true,
	"modelId": true, "currentModelId": true, "modeId": true, "currentModeId": true,
	"messageId": true, "configId": true, "methodId": true, "mimeType": true, "role": true,
}

var word = regexp.MustCompile(`[A-Za-z0-9]{4,}`)

// texts collects the words of a JSON value's strings into content, and of
// its member names and the protocol's values into structure.
func texts(v []byte, key, parent string, content, structure map[string]bool) {
	switch v[0] {
	case '{':
		_ = rawjson.Members(v, func(k, val []byte) bool {
			for _, w := range word.FindAllString(string(k), -1) {
				structure[w] = true
			}
			texts(val, string(k), key, content, structure)
			return true
		})
	case '[':
		_ = rawjson.Elements(v, func(_ int, el []byte) bool { texts(el, key, parent, content, structure); return true })
	case '"':
		s, _ := rawjson.Unquote(v)
		into := content
		if protocolKeys[key] || key == "dir" && parent == "" || (parent == "agentInfo" || parent == "clientInfo") && (key == "name" || key == "title" || key == "version") {
			into = structure
		}
		for _, w := range word.FindAllString(s, -1) {
			into[w] = true
		}
	}
}

// Every committed trace, all real sessions, redacted: not one word of its
// texts is left, but for the protocol's own names; and every record is
// still there, with its time, direction, method, id and kind of line, and
// its line's size within what JSON escapes change.
func TestRedactedRealTracesHoldNoneOfTheirTextAndAllOfTheirStructure(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/traces/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			orig, err := os.ReadFile(path)
			require.NoError(t, err)
			red := redacted(t, string(orig))
			content, structure := map[string]bool{}, map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(string(orig)), "\n") {
				texts([]byte(line), "", "", content, structure)
			}
			redWords := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(red), "\n") {
				texts([]byte(line), "", "", redWords, redWords)
			}
			for w := range redWords {
				if content[w] && !structure[w] && strings.Trim(w, "x0123456789") != "" {
					t.Errorf("%q, a word of the trace's text, is in the redacted trace", w)
				}
			}
			sameStructure(t, string(orig), red)
		})
	}
}

func sameStructure(t *testing.T, orig, red string) {
	t.Helper()
	a, b := NewReader(strings.NewReader(orig)), NewReader(strings.NewReader(red))
	var origBytes, redBytes int
	for {
		ra, errA := a.Next()
		rb, errB := b.Next()
		require.Equal(t, errA, errB)
		if errA != nil {
			break
		}
		require.Equal(t, []any{ra.T, ra.Dir, ra.HasLine, ra.JSON, ra.EOL, ra.HasOut, len(ra.Out), ra.Read == nil, ra.Conn == nil},
			[]any{rb.T, rb.Dir, rb.HasLine, rb.JSON, rb.EOL, rb.HasOut, len(rb.Out), rb.Read == nil, rb.Conn == nil})
		if ra.HasLine {
			ma, mb := acp.NewMessage(ra.Dir, ra.Line, time.Time{}), acp.NewMessage(rb.Dir, rb.Line, time.Time{})
			require.Equal(t, ma.Method(), mb.Method())
			require.Equal(t, string(ma.ID()), string(mb.ID()))
			origBytes += len(ra.Line)
			redBytes += len(rb.Line)
		}
	}
	assert.InDelta(t, origBytes, redBytes, float64(origBytes)/50, "sizes kept, within 2%%")
}
