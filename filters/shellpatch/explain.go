package shellpatch

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

var _ filters.Explained = (*ShellPatch)(nil)

// Flag implements filters.Explained.
func (*ShellPatch) Flag() string { return "--shell-to-patch" }

// Explain implements filters.Explained.
func (*ShellPatch) Explain(d acp.Direction, changed bool, _ *capabilities.Negotiated) string {
	if d == acp.AgentToClient && !changed {
		return "stood aside: no shell command that provably writes one file"
	}
	return ""
}
