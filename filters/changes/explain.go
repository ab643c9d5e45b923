package changes

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

var _ filters.Explained = (*Filter)(nil)

func (f *Filter) Flag() string { return "--show-changes" }

// Explain says what the filter did for a summary: it adds updates to the
// client only.
func (f *Filter) Explain(d acp.Direction, changed bool, caps *capabilities.Negotiated) string {
	switch {
	case d == acp.ClientToAgent:
		return ""
	case caps != nil && caps.ProtocolVersion() > 1:
		return "stood aside: ACP v2 connection"
	case changed:
		return "added an update after commands that changed files under the session's directory, with their diffs"
	}
	return "no command changed a file under the session's directory (or none ran)"
}
