package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/linediff"
	"github.com/acp-proxy/acp-proxy/internal/trace"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// readTrace reads every record of a trace but the connection records that
// mark where a proxy run starts: the tests read one run's messages.
func readTrace(t *testing.T, r io.Reader) []trace.Record {
	t.Helper()
	var recs []trace.Record
	for rec, err := range trace.NewReader(r).All() {
		require.NoError(t, err, "reading trace")
		if rec.Conn != nil {
			continue
		}
		recs = append(recs, rec)
	}
	return recs
}

func readTraceFile(t *testing.T, path string) []trace.Record {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	return readTrace(t, f)
}

// delivered is what the recording proxy sent on in direction d: each
// received line, or what a filter sent in its place, and the lines it
// added itself; a held line when it left (its "heldSince" record).
func delivered(recs []trace.Record, d acp.Direction) [][]byte {
	var out [][]byte
	for _, r := range recs {
		if r.Dir != d {
			continue
		}
		if r.HasOut {
			out = append(out, r.Out...)
		} else if r.HasLine && !r.Held {
			out = append(out, r.Line)
		}
	}
	return out
}

// linesOf are the lines of direction d of a replay's output, which is a
// trace of what each side received.
func linesOf(recs []trace.Record, d acp.Direction) [][]byte {
	var out [][]byte
	for _, r := range recs {
		if r.Dir == d && r.HasLine {
			out = append(out, r.Line)
		}
	}
	return out
}

// clientLines are the lines the test client received.
func clientLines(c *acpclient.Client) [][]byte {
	var out [][]byte
	for _, l := range c.Lines() {
		out = append(out, l.Raw)
	}
	return out
}

// clientSent are the lines the test client wrote, without their '\n'.
func clientSent(c *acpclient.Client) [][]byte {
	var out [][]byte
	for _, s := range c.Sent() {
		out = append(out, bytes.TrimSuffix(s, []byte("\n")))
	}
	return out
}

// replayTrace runs `acp-proxy replay flags… trace` and returns the records
// of its output.
func replayTrace(t *testing.T, trace string, flags ...string) []trace.Record {
	t.Helper()
	cmd := exec.Command(proxyBin(t), append(append([]string{"replay"}, flags...), trace)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "acp-proxy replay %q\n%s", flags, stderr.String())
	assert.Empty(t, stderr.String(), "acp-proxy replay %q wrote to stderr: %s", flags, stderr.String())
	return readTrace(t, &stdout)
}

// sameLines fails at the first line where two streams differ.
func sameLines(t *testing.T, what string, want, got [][]byte) {
	t.Helper()
	d := linediff.First(want, got)
	assert.Empty(t, d, "%s: %s", what, d)
}

func shorten(b []byte) string {
	const max = 800
	if b == nil {
		return "(none)"
	}
	if len(b) <= max {
		return string(b)
	}
	return fmt.Sprintf("%s …[%d bytes]… %s", b[:max/2], len(b)-max, b[len(b)-max/2:])
}

// envelope is the part of a line the comparisons read.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Update   json.RawMessage `json:"update"`
		ToolCall json.RawMessage `json:"toolCall"`
	} `json:"params"`
}

func decodeEnvelope(t *testing.T, line []byte) envelope {
	t.Helper()
	var e envelope
	require.NoError(t, json.Unmarshal(line, &e), "not a JSON-RPC message: %s", shorten(line))
	return e
}

// toolUpdate returns the toolCallId and update object of a tool_call or
// tool_call_update notification.
func toolUpdate(t *testing.T, line []byte) (id string, update map[string]json.RawMessage, ok bool) {
	t.Helper()
	e := decodeEnvelope(t, line)
	if e.Method != "session/update" || len(e.Params.Update) == 0 {
		return "", nil, false
	}
	if err := json.Unmarshal(e.Params.Update, &update); err != nil {
		return "", nil, false
	}
	var kind string
	json.Unmarshal(update["sessionUpdate"], &kind)
	if kind != "tool_call" && kind != "tool_call_update" {
		return "", nil, false
	}
	json.Unmarshal(update["toolCallId"], &id)
	return id, update, id != ""
}

// terminalKeys are the terminal-output extension's _meta keys.
var terminalKeys = []string{"terminal_info", "terminal_output", "terminal_output_delta", "terminal_exit"}

// callState is a tool call as a client shows it after all its updates: a
// tool_call sets every field, a tool_call_update replaces the fields it
// carries (ACP: arrays and objects replace, they do not merge). Terminal
// output, which the extension appends, is kept apart under
// "terminal data", and the exit under "terminal exit".
type callState map[string]string

// finalStates folds the tool updates among lines into each call's state.
func finalStates(t *testing.T, lines [][]byte) map[string]callState {
	t.Helper()
	states := map[string]callState{}
	for _, line := range lines {
		id, u, ok := toolUpdate(t, line)
		if !ok {
			continue
		}
		st := states[id]
		var kind string
		json.Unmarshal(u["sessionUpdate"], &kind)
		if st == nil || kind == "tool_call" {
			st = callState{}
			states[id] = st
		}
		for k, v := range u {
			if k == "sessionUpdate" {
				continue
			}
			st[k] = compact(v)
		}
		var meta map[string]json.RawMessage
		json.Unmarshal(u["_meta"], &meta)
		for _, k := range []string{"terminal_output", "terminal_output_delta"} {
			var out struct {
				Data string `json:"data"`
			}
			if json.Unmarshal(meta[k], &out) == nil {
				st["terminal data"] += out.Data
			}
		}
		if exit, ok := meta["terminal_exit"]; ok {
			st["terminal exit"] = compact(exit)
		}
	}
	return states
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return string(v)
	}
	return b.String()
}

// sameFinalStates compares what a client shows of every tool call.
func sameFinalStates(t *testing.T, what string, want, got [][]byte) {
	t.Helper()
	ws, gs := finalStates(t, want), finalStates(t, got)
	if reflect.DeepEqual(ws, gs) {
		return
	}
	ids := map[string]bool{}
	for id := range ws {
		ids[id] = true
	}
	for id := range gs {
		ids[id] = true
	}
	var sorted []string
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		w, g := ws[id], gs[id]
		if reflect.DeepEqual(w, g) {
			continue
		}
		var diffs []string
		for k := range union(w, g) {
			if w[k] != g[k] {
				diffs = append(diffs, fmt.Sprintf("  %s:\n    want %s\n     got %s", k, shorten([]byte(w[k])), shorten([]byte(g[k]))))
			}
		}
		sort.Strings(diffs)
		assert.Failf(t, "a tool call ends differently", "%s: tool call %s:\n%s", what, id, strings.Join(diffs, "\n"))
	}
}

func union(a, b callState) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// withoutToolUpdates drops the tool_call / tool_call_update notifications,
// whose number and timing coalescing decides, and keeps everything else in
// order.
func withoutToolUpdates(t *testing.T, lines [][]byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, l := range lines {
		if _, _, ok := toolUpdate(t, l); !ok {
			out = append(out, l)
		}
	}
	return out
}

// firstUpdates are the first tool update of each call, which coalescing
// never holds back, in order.
func firstUpdates(t *testing.T, lines [][]byte) [][]byte {
	t.Helper()
	seen := map[string]bool{}
	var out [][]byte
	for _, l := range lines {
		if id, _, ok := toolUpdate(t, l); ok && !seen[id] {
			seen[id] = true
			out = append(out, l)
		}
	}
	return out
}
