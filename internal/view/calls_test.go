package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool update's one-line description lists its members as the agent
// ordered them, and a member set to null or "" replaces the call's value,
// as a client applies it.
func TestToolUpdatesAreDescribedInTheAgentsOrder(t *testing.T) {
	d := build(t, traceOf(
		0.1, a2c, update(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls","status":"pending","kind":"execute"}`),
		0.2, a2c, update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"terminal_id":"t","data":"a\u00e9\n"}},"status":"in_progress"}`),
		0.3, a2c, update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","rawOutput":{"x":1},"status":"completed","title":null,"content":[]}`),
		0.4, a2c, update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_exit":{"terminal_id":"t","exit_code":3,"signal":"SIGTERM"}}}`),
	))
	var briefs []string
	for _, m := range d.Messages {
		briefs = append(briefs, m.Brief)
	}
	assert.Equal(t, []string{
		"ls · pending",
		"terminal_output 4 B · in_progress",
		"rawOutput 7 B · completed · content 2 B",
		"terminal_exit 3",
	}, briefs)
	require.Len(t, d.Calls, 1)
	c := d.Calls[0]
	assert.Equal(t, []string{"", "execute", "completed"}, []string{c.Title, c.Kind, c.Status}, "title: null clears the title")
	require.Len(t, c.Final.After.Terminals, 1)
	term := c.Final.After.Terminals[0]
	assert.Equal(t, "aé\n", term.Output.Text)
	assert.Equal(t, "3", string(term.ExitCode))
	assert.Equal(t, `"SIGTERM"`, string(term.Signal))
	assert.True(t, term.Exited)
}
