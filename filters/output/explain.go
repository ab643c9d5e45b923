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

func (f *TerminalOutput) Flag() string {
	if f.OnlyUnasked {
		return "--deltas (terminal output sent unasked)"
	}
	return "--terminal-output"
}

func (f *TerminalOutput) Explain(d acp.Direction, changed bool, caps *capabilities.Negotiated) string {
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

func (*Deltas) Explain(d acp.Direction, changed bool, _ *capabilities.Negotiated) string {
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

func (*PersistedOutput) Explain(d acp.Direction, changed bool, _ *capabilities.Negotiated) string {
	if d == acp.AgentToClient && !changed {
		return "stood aside: no <persisted-output> preview or saved-output note"
	}
	return ""
}
