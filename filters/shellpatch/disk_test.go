package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// answer is one recorded read.
type answer struct {
	q   filters.DiskRead
	val []byte
	err error
}

// tapeDisk records what the filter reads (live), or answers from what it
// recorded (a replay), as a trace does.
type tapeDisk struct {
	tape   []answer
	replay bool
	asked  []string // kinds asked, in order
}

func (d *tapeDisk) Read(_ *filters.Message, q filters.DiskRead, read func() ([]byte, error)) ([]byte, error) {
	d.asked = append(d.asked, q.Kind)
	if d.replay {
		for i, a := range d.tape {
			if a.q.Kind == q.Kind && a.q.Path == q.Path && string(a.q.Args) == string(q.Args) {
				d.tape = append(d.tape[:i], d.tape[i+1:]...)
				return a.val, a.err
			}
		}
		return read()
	}
	val, err := read()
	d.tape = append(d.tape, answer{q, val, err})
	return val, err
}

// What shell-to-patch reads goes through the message's Disk: the target's
// oldText when it shows the write, and the file read back when the call
// ends. A replay answered from a recording shows what the live filter
// showed, whatever the replaying machine's file holds; without a recorded
// read-back, a replay does not read the file, and the edit stands.
func TestShellToPatchReadsThroughTheDisk(t *testing.T) {
	const done = `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`
	live := &tapeDisk{}
	c, dir := shellPatchSession(t, &Filter{})
	c.Disk = live
	run := func(c *filters.Chain) []chaintest.Sent {
		got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "printf 'new\\n' > f", dir))
		return append(got, chaintest.Run(t, c, acp.AgentToClient, patchUpdate(done))...)
	}
	want := run(c) // the command writes nothing: taken back
	require.Len(t, want, 2)
	assert.Contains(t, want[1].Raw, "does not exist")
	assert.Equal(t, []string{"write-target", "read-back"}, live.asked)

	// The replaying machine's file holds what was shown: the trace's
	// answers still decide.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("new\n"), 0o644))
	c = sessionIn(t, &Filter{Unverified: true}, dir)
	c.Disk = &tapeDisk{tape: live.tape, replay: true}
	assert.Equal(t, want, run(c))

	require.NoError(t, os.Remove(filepath.Join(dir, "f")))
	c = sessionIn(t, &Filter{Unverified: true}, dir)
	c.Disk = &tapeDisk{replay: true}
	got := run(c)
	assert.Equal(t, `"edit"`, field(t, got[0].Raw, "params", "update", "kind"))
	assert.Equal(t, patchUpdate(done), got[1].Raw, "nothing recorded, nothing read back: the edit stands")
}

// sessionIn is shellPatchSession in the directory dir.
func sessionIn(t *testing.T, f *Filter, dir string) *filters.Chain {
	c := filters.NewChain(capabilities.New(), f)
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
	return c
}
