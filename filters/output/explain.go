package output

import (
	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// What the output filters say in a summary (filters.Explained).

var (
	_ filters.Explained = (*TerminalOutput)(nil)
	_ filters.Explained = (*Deltas)(nil)
	_ filters.Explained = (*PersistedOutput)(nil)
)

// standsAsideOnV2 is each output filter's note on an ACP v2 connection,
// where it does not run (it does not implement filters.KnowsV2): v2 gives
// every client display terminals, whose output the agent streams itself
// (terminal_update snapshots and terminal_output_chunk appends, base64),
// so there is no _meta extension to ask for or translate, no growing
// snapshot to cut into deltas, and no saved-output preview in a text the
// filter knows. "" on a v1 connection. asks: the filter would ask the
// agent for the extension in initialize on v1.
func standsAsideOnV2(d acp.Direction, caps *capabilities.Negotiated, asks bool) string {
	switch {
	case caps == nil || caps.ProtocolVersion() <= 1:
		return ""
	case d == acp.ClientToAgent && asks:
		return "stood aside: ACP v2 initialize; v2 clients get display terminals, there is no _meta.terminal_output to ask for"
	case d == acp.ClientToAgent:
		return ""
	}
	return "stood aside: ACP v2 connection; the agent streams command output itself on v2's display terminals (terminal_update, terminal_output_chunk)"
}

func (f *TerminalOutput) Flag() string {
	if f.OnlyUnasked {
		return "--deltas (terminal output sent unasked)"
	}
	return "--terminal-output"
}

func (f *TerminalOutput) Explain(d acp.Direction, changed bool, caps *capabilities.Negotiated) string {
	if note := standsAsideOnV2(d, caps, !f.OnlyUnasked); note != "" {
		return note
	}
	var client capabilities.Client
	if caps != nil {
		client, _ = caps.Client()
	}
	switch {
	case f.OnlyUnasked && d == acp.ClientToAgent:
		return ""
	case f.OnlyUnasked && !changed:
		return "stood aside: the agent sent no terminal output the client could not show"
	case d == acp.ClientToAgent && changed:
		return "asked the agent for _meta.terminal_output in initialize"
	case d == acp.ClientToAgent:
		return ""
	case changed:
		return ""
	case client.SpeaksTerminalOutput():
		return "stood aside: the client renders _meta.terminal_output itself"
	}
	return "stood aside: no terminal output to translate for this client"
}

func (*Deltas) Flag() string { return "--deltas" }

func (*Deltas) Explain(d acp.Direction, changed bool, caps *capabilities.Negotiated) string {
	if note := standsAsideOnV2(d, caps, false); note != "" {
		return note
	}
	if d == acp.AgentToClient && !changed {
		return "stood aside: no output came as growing snapshots (codex-acp 0.13's shell does)"
	}
	return ""
}

func (f *PersistedOutput) Flag() string {
	if f.Expand {
		return "--expand-persisted-output"
	}
	return "--terminal-output (saved-output previews)"
}

func (*PersistedOutput) Explain(d acp.Direction, changed bool, caps *capabilities.Negotiated) string {
	if note := standsAsideOnV2(d, caps, false); note != "" {
		return note
	}
	if d == acp.AgentToClient && !changed {
		return "stood aside: no <persisted-output> preview or saved-output note"
	}
	return ""
}
