package changes

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
)

// The agent's update that ends a command is held (Message.Hold), not
// dropped and copied: whether it leaves alone, past maxCallHold, or
// carrying the command's diffs, it leaves as the release of that line
// (Line.Held), so the relay's observers see the agent's line pass late,
// changed or not, and no line the proxy added.
func TestTheEndOfACallLeavesAsTheAgentsLineHeld(t *testing.T) {
	for _, late := range []bool{false, true} {
		gate := make(chan struct{})
		f := &Filter{}
		if late {
			f.Take = gatedTake(gate)
		}
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
		s.agent(started("c1", "cp a b"))
		s.run("cp a b")
		var lines []filters.Line
		keep := func(l filters.Line) error {
			l.Raw = append([]byte(nil), l.Raw...)
			lines = append(lines, l)
			return nil
		}
		end := ended("c1", "completed", "copied")
		m := filters.NewMessage(acp.AgentToClient, []byte(end), time.Unix(0, 0), nil)
		require.NoError(t, s.chain.Process(m, keep))
		assert.True(t, m.Held(), "late %v: the call's end is held, as the agent's line", late)
		assert.Empty(t, lines, "late %v: nothing leaves for it yet", late)
		if late {
			_, err := s.chain.Tick(acp.AgentToClient, time.Unix(0, 0).Add(maxCallHold), keep)
			require.NoError(t, err)
			close(gate)
		}
		require.NoError(t, s.chain.Drain(acp.AgentToClient, time.Unix(0, 0), keep))
		require.NotEmpty(t, lines, "late %v", late)
		first := lines[0]
		require.NotNil(t, first.Held, "late %v: the first line to leave is the end's release", late)
		assert.Equal(t, end, string(first.Held.Raw), "late %v: the line held is the agent's, as it came", late)
		if late {
			assert.True(t, first.Original, "the end left alone, unchanged")
			assert.Equal(t, end, string(first.Raw))
			require.Len(t, lines, 2, "the diffs follow on an update of their own")
			assert.Nil(t, lines[1].Held, "the follow-up is the proxy's own line")
			assert.Contains(t, string(lines[1].Raw), `"type":"diff"`)
			continue
		}
		assert.False(t, first.Original, "the end left changed")
		assert.True(t, strings.HasPrefix(string(first.Raw), `{"jsonrpc":"2.0","method":"session/update"`))
		assert.Contains(t, string(first.Raw), `"type":"diff"`, "carrying the diffs")
		assert.Len(t, lines, 1, "nothing else left")
	}
}
