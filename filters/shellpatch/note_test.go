package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// What the filter does to a call is noted for the chain's observers
// (OpenTelemetry's span events): the edit shown, then verified or taken
// back (with why, which names the file) when the call ends.
func TestTheFilterNotesWhatItDoes(t *testing.T) {
	const done = `{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}`
	for _, tc := range []struct {
		name    string
		written bool
		want    []string
	}{
		{"written as shown", true, []string{"edit shown", "edit verified"}},
		{"not written", false, []string{"edit shown", "edit taken back"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := shellPatchSession(t, &Filter{})
			var notes []filters.Note
			c.OnNote = func(n filters.Note) { notes = append(notes, n) }
			chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", "printf 'new\\n' > f", dir))
			if tc.written {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("new\n"), 0o644))
			}
			chaintest.Run(t, c, acp.AgentToClient, patchUpdate(done))
			var events []string
			for _, n := range notes {
				events = append(events, n.Event)
				assert.Equal(t, "shell-to-patch", n.Filter)
				assert.Equal(t, [2]string{"S", "c1"}, [2]string{n.SessionID, n.ToolCallID})
				assert.Equal(t, 1, n.Files)
				assert.False(t, n.Time.IsZero(), "a note has the message's time")
			}
			assert.Equal(t, tc.want, events)
			if !tc.written {
				assert.Contains(t, notes[1].Detail, filepath.Join(dir, "f")+" does not exist", fmt.Sprint(notes))
			}
		})
	}
}
