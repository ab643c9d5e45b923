package realagent_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// onlyPermission returns the one permission request the client was sent:
// its toolCall and its option ids, in order.
func onlyPermission(t *testing.T, c *acpclient.Client) (acpclient.ToolUpdate, []string) {
	t.Helper()
	perms := c.PermissionRequests()
	require.Len(t, perms, 1, "got %d permission requests, want 1", len(perms))
	var p struct {
		ToolCall acpclient.ToolUpdate `json:"toolCall"`
		Options  []struct {
			OptionID string `json:"optionId"`
		} `json:"options"`
	}
	require.NoError(t, json.Unmarshal(perms[0], &p))
	var ids []string
	for _, o := range p.Options {
		ids = append(ids, o.OptionID)
	}
	return p.ToolCall, ids
}
