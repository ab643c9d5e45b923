package acp

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzToolUpdate checks the tool-call reader against encoding/json on any
// update: the members it reads (the last of a repeated key counting), the
// order it lists them in, and the terminal-output extension's data and
// exit status.
func FuzzToolUpdate(f *testing.F) {
	for _, u := range []string{
		`{"sessionUpdate":"tool_call","toolCallId":"c","title":"ls","status":"pending","kind":"execute","locations":[{"path":"/a"}]}`,
		`{"toolCallId":"c","sessionUpdate":"tool_call_update","_meta":{"terminal_output":{"terminal_id":"t","data":"a\u00e9\n"}},"status":null}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"terminal_exit":{"terminal_id":"t","exit_code":1,"signal":"SIGINT"}},"rawOutput":{},"title":"x","title":7}`,
		`{"sessionUpdate":"tool_call","toolCallId":"c","content":[],"rawInput":{"command":"ls"},"_meta":{"terminal_output_delta":{"data":"d"}}}`,
	} {
		f.Add([]byte(u))
	}
	f.Fuzz(func(t *testing.T, update []byte) {
		raw := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":` + string(update) + `}}`)
		m := NewMessage(AgentToClient, raw, time.Time{})
		var obj map[string]json.RawMessage
		if !m.Checked() || json.Unmarshal(m.Update(), &obj) != nil || obj == nil {
			return
		}
		u, ok := m.ToolUpdate()
		var id, kind string
		_ = json.Unmarshal(obj["toolCallId"], &id)
		_ = json.Unmarshal(obj["sessionUpdate"], &kind)
		require.Equal(t, id != "" && (kind == "tool_call" || kind == "tool_call_update"), ok, "%s", update)
		require.Equal(t, kind, u.SessionUpdate, "%s", update)
		for key, got := range map[string]string{"title": u.Title, "status": u.Status, "kind": u.Kind} {
			var want string
			_ = json.Unmarshal(obj[key], &want)
			require.Equal(t, want, got, "%s of %s", key, update)
		}
		for key, got := range map[string][]byte{"content": u.Content, "locations": u.Locations, "rawInput": u.RawInput, "rawOutput": u.RawOutput, "_meta": u.Meta} {
			require.Equal(t, string(obj[key]), string(got), "%s of %s", key, update)
		}
		require.Equal(t, memberOrder(t, m.Update()), u.Order(), "%s", update)
		checkTermMeta(t, obj["_meta"], u.Term)
		checkReadAt(t, raw, u, ok)
	})
}

// checkReadAt checks that a valid message's tool update read from its
// head (ReadToolUpdateAt) is the one ToolUpdate reads, u (ok).
func checkReadAt(t *testing.T, raw []byte, u ToolUpdate, ok bool) {
	h, headOK := ReadUpdateHead(raw)
	if !headOK {
		return
	}
	at, atOK := ReadToolUpdateAt(raw, h)
	require.Equal(t, ok && h.ToolCall(), atOK, "%s", raw)
	if atOK {
		u.Raw, at.Raw = nil, nil
		require.Equal(t, u, at, "%s", raw)
	}
}

// memberOrder is the Members of the update object raw, in order, as
// encoding/json reads its keys (at most maxOrder).
func memberOrder(t *testing.T, raw []byte) []Member {
	names := map[string]Member{"title": MemberTitle, "kind": MemberKind, "status": MemberStatus, "content": MemberContent,
		"locations": MemberLocations, "rawInput": MemberRawInput, "rawOutput": MemberRawOutput, "_meta": MemberMeta}
	dec := json.NewDecoder(bytes.NewReader(raw))
	_, err := dec.Token() // {
	require.NoError(t, err)
	order := []Member{}
	for dec.More() {
		key, err := dec.Token()
		require.NoError(t, err)
		var val json.RawMessage
		require.NoError(t, dec.Decode(&val))
		if k, ok := names[key.(string)]; ok && len(order) < maxOrder {
			order = append(order, k)
		}
	}
	return order
}

// checkTermMeta checks what the reader found of the extension in meta.
func checkTermMeta(t *testing.T, meta json.RawMessage, tm TermMeta) {
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(meta, &keys)
	member := func(val json.RawMessage, key string) json.RawMessage {
		var o map[string]json.RawMessage
		_ = json.Unmarshal(val, &o)
		return o[key]
	}
	decoded := func(val json.RawMessage) string {
		var s string
		_ = json.Unmarshal(member(val, "data"), &s)
		return s
	}
	output, delta := Data(tm)
	require.Equal(t, decoded(keys[MetaTerminalOutput]), output, "%s", meta)
	require.Equal(t, decoded(keys[MetaTerminalOutputDelta]), delta, "%s", meta)
	code, signal := tm.ExitStatus()
	exit := keys[MetaTerminalExit]
	require.Equal(t, string(member(exit, "exit_code")), string(code), "%s", meta)
	require.Equal(t, string(member(exit, "signal")), string(signal), "%s", meta)
}
