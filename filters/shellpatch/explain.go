package shellpatch

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

var _ filters.Explained = (*Filter)(nil)

// Flag implements filters.Explained.
func (*Filter) Flag() string { return "--shell-to-patch" }

// Explain implements filters.Explained.
func (*Filter) Explain(d acp.Direction, changed bool, _ *capabilities.Negotiated) string {
	if d == acp.AgentToClient && !changed {
		return "stood aside: no shell command that provably writes one file"
	}
	return ""
}
