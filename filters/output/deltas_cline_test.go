package output

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// cline's messages for one run_commands call (docs/agents.md): an update
// that announces it, in_progress after the permission request, the
// tool_call itself (pending again, no content), and the end, whose
// rawOutput lists each command with its output; no update carries content.
const clineAgent = "cline"

func clineAnnounce(id string) string {
	return upd(id, `"title":"run_commands: seq 2","kind":"execute","status":"pending","rawInput":{"commands":["seq 2"]}`)
}

func clineCall(id string) string {
	return update(`"sessionUpdate":"tool_call","toolCallId":"` + id + `","title":"run_commands: seq 2","kind":"execute","status":"pending","rawInput":{"commands":["seq 2"]}`)
}

func clineEnd(id string) string {
	return upd(id, `"status":"completed","rawOutput":[{"query":"seq 2","result":"1\n2\n","success":true},{"query":"false","result":"[Command exited with code 1]\n","error":"Command exited with code 1","success":false}]`)
}

// TestDeltasShowsClinesRawOutput: a command call whose output is only in
// rawOutput is shown it at its end, fenced, for a client without the
// extension, and in the display terminal the proxy gives the call for a
// client with it.
func TestDeltasShowsClinesRawOutput(t *testing.T) {
	const output = "1\n2\n[Command exited with code 1]\n"
	in := []string{clineAnnounce("c1"), upd("c1", `"status":"in_progress"`), clineCall("c1"), clineEnd("c1")}

	h := newHarness(t, plainClient, clineAgent, &Deltas{})
	for _, l := range in {
		h.agent(l)
	}
	assert.Equal(t, []string{in[0], in[1], in[2], clineEnd("c1")[:len(clineEnd("c1"))-3] + `,"content":` + textContent(shFence(output)) + "}}}"}, h.take(), "plain client")
	assert.Empty(t, h.errs)

	h = newHarness(t, zedClient, clineAgent, &Deltas{})
	for _, l := range in {
		h.agent(l)
	}
	terminal := update(`"sessionUpdate":"tool_call","toolCallId":"c1","title":"run_commands: seq 2","kind":"execute","status":"pending","rawInput":{"commands":["seq 2"]},"content":[{"type":"terminal","terminalId":"c1"}],"_meta":{"terminal_info":{"terminal_id":"c1"}}`)
	exit := clineEnd("c1")[:len(clineEnd("c1"))-3] + `,"_meta":{"terminal_exit":{"terminal_id":"c1","exit_code":null,"signal":null}}}}}`
	assert.Equal(t, []string{in[0], in[1], terminal, delta("c1", output), exit}, h.take(), "client with the extension")
	assert.Empty(t, h.errs)
}

// A call that showed content of its own keeps it: the end is not given
// rawOutput's text in its place.
func TestDeltasLeavesShownContentAlone(t *testing.T) {
	call := update(`"sessionUpdate":"tool_call","toolCallId":"c1","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"why"}}]`)
	h := newHarness(t, plainClient, clineAgent, &Deltas{})
	h.agent(call)
	h.agent(clineEnd("c1"))
	assert.Equal(t, []string{call, clineEnd("c1")}, h.take())
	assert.Empty(t, h.errs)
}

func TestRawOutputTextReadsCommandResults(t *testing.T) {
	cases := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`[{"query":"a","result":"x\n","success":true},{"query":"b","result":"y","success":false}]`, "x\ny", true},
		{` [{"query":"a","result":"","success":true}] `, "", true},
		{`[]`, "", false},
		{`[{"query":"a","result":"x"},{"path":"f"}]`, "", false},
		{`[{"result":"x"}]`, "", false},
		{`["x"]`, "", false},
	}
	for _, c := range cases {
		got, ok := rawOutputText([]byte(c.raw))
		assert.Equal(t, c.ok, ok, "%s", c.raw)
		assert.Equal(t, c.want, got, "%s", c.raw)
	}
}
