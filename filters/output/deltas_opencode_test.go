package output

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/toolcall"
)

// opencodeFirst is opencode's first update, once the model's input is
// complete: every later one repeats its members.
func opencodeFirst(id, cwd string) string {
	return update(`"sessionUpdate":"tool_call_update","toolCallId":"` + id + `","status":"in_progress","kind":"execute","title":` + q(opencodeCmd) + `,"locations":[{"path":` + q(cwd) + `}],"rawInput":{"command":` + q(opencodeCmd) + `,"description":"Print lines","cwd":` + q(cwd) + `}`)
}

// opencodePermission is its permission request, which shows the call with
// other locations and rawInput.
func opencodePermission(id string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"` + id + `","title":` + q(opencodeCmd) + `,"kind":"execute","status":"pending","locations":[],"rawInput":{"command":` + q(opencodeCmd) + `}},"options":[{"optionId":"once","kind":"allow_once","name":"Allow once"},{"optionId":"always","kind":"allow_always","name":"Always allow"},{"optionId":"reject","kind":"reject_once","name":"Reject"}]}}`
}

// opencodeTruncatedEnd is the final update with the text truncated to its
// last lines, after a note.
func opencodeTruncatedEnd(id, whole, tail string) string {
	return opencodeEnd(id, opencodeShown("/d/tool-output/tool_1", tail), whole, "/d/tool-output/tool_1")
}

// without is msg without the update members keys.
func without(t testing.TB, msg string, keys ...string) string {
	t.Helper()
	b := []byte(msg)
	for _, k := range keys {
		var err error
		b, _, err = rawjson.Delete(b, toolcall.At(k)...)
		require.NoError(t, err)
	}
	return string(b)
}

// ocDelta is deltas' update for a new piece of opencode's output: only the
// data, the repeated members left out.
func ocDelta(id, data string) string {
	return upd(id, `"_meta":{"terminal_output":{"terminal_id":"`+id+`","data":`+q(data)+`}}`)
}

// TestDeltasOpencode runs opencode's shell call through deltas: members the
// client already holds are left out of each update, snapshots become deltas
// for a client with the extension and are coalesced for one without.
func TestDeltasOpencode(t *testing.T) {
	const id, cwd = "call_1", "/p"
	ms := time.Millisecond
	whole := "line 1\nline 2\nline 3\n"
	tail := "line 2\nline 3\n"
	first := opencodeFirst(id, cwd)
	cases := []struct {
		name   string
		client string
		steps  []step
		want   []string
	}{{
		name:   "a client with the extension: a terminal, deltas, the end as it is",
		client: zedClient,
		steps: []step{
			fromAgent(opencodeCall(id, cwd)), fromAgent(first), fromAgent(opencodePermission(id)), fromAgent(first),
			fromAgent(opencodeSnap(id, cwd, "line 1\n")), fromAgent(opencodeSnap(id, cwd, "line 1\nline 2\n")),
			fromAgent(opencodeSnap(id, cwd, "line 1\nline 2\n")), fromAgent(opencodeSnap(id, cwd, whole)),
			fromAgent(opencodeTruncatedEnd(id, whole, tail)),
		},
		want: []string{
			strings.TrimSuffix(opencodeCall(id, cwd), "}}}") + `,"content":[{"type":"terminal","terminalId":"call_1"}],"_meta":{"terminal_info":{"terminal_id":"call_1"}}}}}`,
			// kind and locations are the tool_call's.
			without(t, first, "kind", "locations"),
			opencodePermission(id),
			// After the permission request, status, locations and
			// rawInput differ from what the client holds.
			without(t, first, "kind", "title"),
			ocDelta(id, "line 1\n"), ocDelta(id, "line 2\n"), ocDelta(id, "line 3\n"),
			// The truncated end replaces the terminal; only its title
			// is a repeat.
			without(t, opencodeTruncatedEnd(id, whole, tail), "title"),
		},
	}, {
		name:   "a client without it: the repeats left out, the snapshots coalesced",
		client: plainClient,
		steps: []step{
			fromAgent(opencodeCall(id, cwd)), fromAgent(first), fromAgent(opencodePermission(id)), fromAgent(first),
			fromAgent(opencodeSnap(id, cwd, "line 1\n")),
			after(10 * ms), fromAgent(opencodeSnap(id, cwd, "line 1\nline 2\n")),
			after(10 * ms), fromAgent(opencodeSnap(id, cwd, whole)),
			after(100 * ms),
			fromAgent(opencodeTruncatedEnd(id, whole, tail)),
		},
		want: []string{
			opencodeCall(id, cwd), without(t, first, "kind", "locations"), opencodePermission(id), without(t, first, "kind", "title"),
			upd(id, `"content":`+textContent("line 1\n")),
			upd(id, `"content":`+textContent(whole)),
			without(t, opencodeTruncatedEnd(id, whole, tail), "title"),
		},
	}, {
		name:   "an update that only repeats is not sent",
		client: plainClient,
		steps:  []step{fromAgent(opencodeCall(id, cwd)), fromAgent(first), fromAgent(first)},
		want:   []string{opencodeCall(id, cwd), without(t, first, "kind", "locations")},
	}, {
		name:   "a member is left out only when it repeats the latest value",
		client: plainClient,
		steps: []step{
			fromAgent(opencodeCall(id, cwd)), fromAgent(first),
			fromAgent(upd(id, `"title":"other"`)), fromAgent(first),
		},
		want: []string{opencodeCall(id, cwd), without(t, first, "kind", "locations"), upd(id, `"title":"other"`), without(t, first, "status", "kind", "locations", "rawInput")},
	}, {
		name:   "a tool_call again sets what the client holds anew",
		client: plainClient,
		steps: []step{
			fromAgent(opencodeCall(id, cwd)), fromAgent(first),
			fromAgent(update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"bash","kind":"execute","status":"pending"`)),
			fromAgent(first),
		},
		want: []string{opencodeCall(id, cwd), without(t, first, "kind", "locations"),
			update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"bash","kind":"execute","status":"pending"`),
			without(t, first, "kind")},
	}, {
		name:   "a call the filter did not see start is left alone",
		client: zedClient,
		steps:  []step{fromAgent(first), fromAgent(first)},
		want:   []string{first, first},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.client, opencodeAgent, &Deltas{})
			h.run(c.steps...)
			h.drain()
			got := h.take()
			require.Len(t, got, len(c.want), "%q", got)
			for i := range c.want {
				sameText(t, c.want[i], got[i])
			}
			assert.Empty(t, h.errs)
		})
	}
}

// TestDeltasOpencodeWindows: past 30,000 characters opencode's snapshots
// are a window of the output's end, which no longer extends what a client
// with the extension was sent: from there the call's snapshots are
// coalesced, as for a client without it.
func TestDeltasOpencodeWindows(t *testing.T) {
	const id, cwd = "call_1", "/p"
	ms := time.Millisecond
	h := newHarness(t, zedClient, opencodeAgent, &Deltas{})
	w1, w2, w3 := "...\n\nline 2\nline 3\n", "...\n\nline 3\nline 4\n", "...\n\nline 4\nline 5\n"
	h.run(fromAgent(opencodeCall(id, cwd)), fromAgent(opencodeSnap(id, cwd, "line 1\n")),
		fromAgent(opencodeSnap(id, cwd, w1)),
		after(10*ms), fromAgent(opencodeSnap(id, cwd, w2)),
		after(10*ms), fromAgent(opencodeSnap(id, cwd, w3)),
		after(200*ms))
	got := h.take()
	require.Len(t, got, 4)
	sameText(t, upd(id, `"content":`+textContent(w1)), got[2])
	sameText(t, upd(id, `"content":`+textContent(w3)), got[3])
}
