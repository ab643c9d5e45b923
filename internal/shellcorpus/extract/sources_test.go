package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each reader finds the shell commands of its agent's trajectory format and
// the directory each ran in.
func TestReadersFindTheShellCalls(t *testing.T) {
	tests := []struct {
		name string
		read func([]byte) ([]shellCall, error)
		data string
		want []shellCall
	}{
		{"mini-swe-agent: one bash block per reply", readMini, `{"messages":[
			{"role":"user","content":"` + "```bash\\nnot me\\n```" + `"},
			{"role":"assistant","content":"Look:\n` + "```bash\\n ls -la \\n```" + `"},
			{"role":"assistant","content":"` + "```bash\\na\\n```\\n```bash\\nb\\n```" + `"},
			{"role":"assistant","content":[{"type":"text"}]}]}`,
			[]shellCall{{command: "ls -la", cwd: "/testbed"}}},
		{"OpenHands: execute_bash calls, in the directory the last result named", readOpenHands, `{
			"fncall_messages":[
				{"role":"assistant","tool_calls":[{"function":{"name":"execute_bash","arguments":"{\"command\":\"cd src\"}"}}]},
				{"role":"tool","content":"ok\n[Current working directory: /workspace/src]"},
				{"role":"assistant","tool_calls":[{"function":{"name":"str_replace_editor","arguments":"{}"}}]}],
			"fncall_response":{"choices":[{"message":{"role":"assistant",
				"tool_calls":[{"function":{"name":"execute_bash","arguments":"{\"command\":\"make\"}"}}]}}]}}`,
			[]shellCall{{command: "cd src", cwd: "/workspace"}, {command: "make", cwd: "/workspace/src"}}},
		{"SWE-agent: actions but its own tools, in the previous step's directory", readSWEAgent, `{"trajectory":[
			{"action":"ls\n","state":"{\"working_dir\": \"/repo\"}"},
			{"action":"open a.py","state":"{\"working_dir\": \"/repo\"}"},
			{"action":"cd sub","state":"{\"working_dir\": \"/repo/sub\"}"},
			{"action":"pwd","state":""}]}`,
			[]shellCall{{command: "ls", cwd: "/repo"}, {command: "cd sub", cwd: "/repo"}, {command: "pwd", cwd: "/repo/sub"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.read([]byte(tt.data))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestReadersRejectWhatIsNotTheirFormat(t *testing.T) {
	for name, read := range map[string]func([]byte) ([]shellCall, error){
		"mini": readMini, "openhands": readOpenHands, "swe-agent": readSWEAgent,
	} {
		_, err := read([]byte(`[1,2`))
		assert.Error(t, err, name)
	}
	_, err := readOpenHands([]byte(`{"fncall_messages":[{"tool_calls":[{"function":{"name":"execute_bash","arguments":"{bad"}}]}]}`))
	assert.ErrorContains(t, err, "arguments")
}
