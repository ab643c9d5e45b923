package live

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

// A decision the policy took shows in the live page's conversation as it is taken; a note that
// is not one a record keeps does not.
func TestAPageShowsThePolicysDecisions(t *testing.T) {
	srv, tap := relayServer(t)
	ev := openEvents(t, srv)
	ev.next(t)
	pass(tap, prompt(1, "push"))
	tap.Note(filters.Note{Time: time.Unix(2, 0), Dir: acp.AgentToClient, Filter: "shell-to-patch", Event: "edit shown"})
	tap.Note(filters.Note{Time: time.Unix(2, 0), Dir: acp.AgentToClient, Filter: "policy", Event: "deny (line 2) by policy",
		ToolCallID: "c1", Detail: "deny (line 2: deny Bash(git push:*)): git push", Audit: true})
	var d view.Data
	for d = ev.next(t); len(d.Conversation) < 2; d = ev.next(t) {
	}
	require.Len(t, d.Conversation, 2)
	note := d.Conversation[1]
	assert.Equal(t, "note", note.Kind)
	assert.Equal(t, "policy: deny (line 2) by policy", note.Title)
	assert.Equal(t, "c1", note.Call)
	assert.Equal(t, "deny (line 2: deny Bash(git push:*)): git push", note.Text.Text)
}
