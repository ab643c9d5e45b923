package acp

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

func TestToolUpdateReadsAToolCallUpdate(t *testing.T) {
	raw := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","rawInput":{"command":"ls"},"rawOutput":"x","content":[],"_meta":{"terminal_exit":{"terminal_id":"c1","exit_code":0},"other":1}}}}`
	m := NewMessage(AgentToClient, []byte(raw), time.Time{})
	u, ok := m.ToolUpdate()
	require.True(t, ok)
	assert.Equal(t, "c1", u.ID)
	assert.True(t, u.Final())
	assert.Equal(t, `{"command":"ls"}`, string(u.RawInput))
	assert.Equal(t, `"x"`, string(u.RawOutput))
	assert.Equal(t, 3, u.Others, "status, rawInput, rawOutput")

	tm := ParseTermMeta(u.Meta)
	assert.True(t, tm.Any())
	assert.Equal(t, "c1", TerminalID(tm.Exit))
	stripped, err := StripTermMeta([]byte(raw), []string{"params", "update"}, tm)
	require.NoError(t, err)
	assert.Contains(t, string(stripped), `"_meta":{"other":1}`, "other _meta keys stay")

	_, ok = NewMessage(ClientToAgent, []byte(raw), time.Time{}).ToolUpdate()
	assert.False(t, ok, "only the agent sends tool calls")
}

// ToolUpdate reads the extension's keys on its walk over the update: what it finds
// must be what ParseTermMeta reads from _meta on its own, duplicates (the
// last one counts) and values that are not objects included.
func TestToolUpdateReadsTheTerminalKeysAsParseTermMetaDoes(t *testing.T) {
	for _, meta := range []string{
		`{"terminal_output":{"terminal_id":"t1","data":"a\"b\\n"},"x":[{"data":"no"}]}`,
		`{"terminal_output_delta":{"data":"d1","terminal_id":"t2"},"terminal_output_delta":{"terminal_id":"t3","data":"d2"}}`,
		`{"terminal_info":{"terminal_id":"t4"},"terminal_output":{"data":null},"terminal_exit":{"terminal_id":7}}`,
		`{"terminal_output":"not an object","terminal_output_delta":{"data":{"nested":"x"}}}`,
		`null`, `{}`,
	} {
		raw := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":` + meta + `,"status":"in_progress"}}}`
		u, ok := NewMessage(AgentToClient, []byte(raw), time.Time{}).ToolUpdate()
		require.True(t, ok, meta)
		assert.Equal(t, meta, string(u.Meta))
		want := ParseTermMeta(u.Meta)
		assert.Equal(t, want, u.Term, meta)
		for i, v := range [...][]byte{want.Info, want.Output, want.OutputDelta, want.Exit} {
			assert.Equal(t, TerminalID(v), want.TerminalIDs()[i], meta)
		}
		out, delta := RawData(u.Term)
		var wantOut, wantDelta []byte
		for v, dst := range map[*[]byte]*[]byte{&want.Output: &wantOut, &want.OutputDelta: &wantDelta} {
			if d, ok := rawjson.TrustedGet(*v, "data"); ok && len(d) > 1 && d[0] == '"' {
				*dst = d[1 : len(d)-1]
			}
		}
		assert.Equal(t, string(wantOut), string(out), meta)
		assert.Equal(t, string(wantDelta), string(delta), meta)
	}
}

// Order lists the members a reader shows, as the agent ordered them, and
// tells a member set to null or "" from an absent one.
func TestToolUpdateOrderListsTheMembersAsTheUpdateCarriesThem(t *testing.T) {
	for _, tc := range []struct {
		update string
		want   []Member
		title  string
	}{
		{`"title":"ls","status":"pending"`, []Member{MemberTitle, MemberStatus}, "ls"},
		{`"status":"pending","title":"ls"`, []Member{MemberStatus, MemberTitle}, "ls"},
		{`"_meta":{},"title":null,"content":[],"rawOutput":1`, []Member{MemberMeta, MemberTitle, MemberContent, MemberRawOutput}, ""},
		{`"kind":"execute","locations":[{"path":"/a"}],"rawInput":{},"title":""`, []Member{MemberKind, MemberLocations, MemberRawInput, MemberTitle}, ""},
		{`"other":1`, []Member{}, ""},
		{`"title":"a","title":"b"`, []Member{MemberTitle, MemberTitle}, "b"},
	} {
		raw := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1",` + tc.update + `}}}`
		u, ok := NewMessage(AgentToClient, []byte(raw), time.Time{}).ToolUpdate()
		require.True(t, ok, tc.update)
		assert.Equal(t, tc.want, u.Order(), tc.update)
		assert.Equal(t, tc.title, u.Title, tc.update)
	}
}

func TestToolUpdateReadsLocations(t *testing.T) {
	raw := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","locations":[{"path":"/a","line":3}]}}}`
	u, ok := NewMessage(AgentToClient, []byte(raw), time.Time{}).ToolUpdate()
	require.True(t, ok)
	assert.Equal(t, `[{"path":"/a","line":3}]`, string(u.Locations))
	assert.Equal(t, 1, u.Others)
}

// Order is bounded: an update that repeats a key many times has every
// repeat read, the last one counting, and the first maxOrder listed.
func TestToolUpdateOrderIsBounded(t *testing.T) {
	update := strings.Repeat(`"status":"pending",`, maxOrder+3) + `"status":"completed"`
	raw := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1",` + update + `}}}`
	u, ok := NewMessage(AgentToClient, []byte(raw), time.Time{}).ToolUpdate()
	require.True(t, ok)
	assert.Len(t, u.Order(), maxOrder)
	assert.Equal(t, "completed", u.Status)
}

func TestPermissionCallReadsTheToolCallARequestShows(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		ok        bool
		id, title string
		term      bool
	}{
		{"a permission request", `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"c1","title":"rm -rf x","_meta":{"terminal_info":{"terminal_id":"c1"}}},"options":[]}}`, true, "c1", "rm -rf x", true},
		{"no toolCallId", `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"toolCall":{"title":"t"}}}`, true, "", "t", false},
		{"toolCall is null", `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"toolCall":null}}`, false, "", "", false},
		{"another method", `{"jsonrpc":"2.0","id":3,"method":"session/update","params":{"toolCall":{"toolCallId":"c1"}}}`, false, "", "", false},
		{"keys are exact", `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"ToolCall":{"toolCallId":"c1"}}}`, false, "", "", false},
	} {
		u, ok := NewMessage(AgentToClient, []byte(c.raw), time.Time{}).PermissionCall()
		assert.Equal(t, c.ok, ok, c.name)
		assert.Equal(t, c.id, u.ID, c.name)
		assert.Equal(t, c.title, u.Title, c.name)
		assert.Equal(t, c.term, u.Term.Any(), c.name)
	}
}
