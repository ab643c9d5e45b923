package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each agent's rawInput gives its command, as an argument vector or as one string; anything else
// gives none.
func TestReadCommand(t *testing.T) {
	for _, c := range []struct {
		rawInput string
		want     Command
		ok       bool
	}{
		{`{"command":["bash","-lc","ls > f"],"cwd":"/p"}`, Command{Array: true, Argv: []string{"bash", "-lc", "ls > f"}}, true}, // codex-acp 0.x
		{`{"command":"ls > f","description":"d"}`, Command{Line: "ls > f"}, true},                                               // claude, opencode
		{`{"command":"/bin/bash -lc 'ls \u003e f'","cwd":"/p"}`, Command{Line: "/bin/bash -lc 'ls > f'"}, true},                 // codex-acp 1.x
		{`{"command":[]}`, Command{Array: true, Argv: []string{}}, true},
		{`{"command":""}`, Command{}, true},
		{`{"command":["ls",1]}`, Command{}, false},
		{`{"command":42}`, Command{}, false},
		{`{"command":null}`, Command{}, false},
		{`{"commands":["ls"]}`, Command{}, false}, // cline's run_commands
		{`{}`, Command{}, false},
		{`"ls"`, Command{}, false},
		{``, Command{}, false},
	} {
		got, ok := ReadCommand([]byte(c.rawInput))
		assert.Equal(t, c.ok, ok, c.rawInput)
		assert.Equal(t, c.want, got, c.rawInput)
	}
}
