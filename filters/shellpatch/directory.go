package shellpatch

import (
	"path/filepath"

	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
)

// shellCarry is what a claude-agent-acp release does with its shell's directory at a boundary:
// a new prompt turn, or a session/load or session/resume of a session live in the connection.
type shellCarry uint8

const (
	carryUnproven shellCarry = iota // not proven either way: a shell outside the session's directory is lost track of
	carryResets                     // the shell starts again in the session's directory
	carryKeeps                      // the shell stays where the last command left it
)

// claudeRelease is a claude-agent-acp release, as its initialize answer names it (agentInfo).
type claudeRelease struct{ name, version string }

// claudeCarries are the releases whose behaviour was proven by running them
// (TestShellToPatchClaudeShellAcrossTurns in internal/e2e), per boundary. Any other release, or
// boundary, is unproven.
var claudeCarries = map[claudeRelease]map[string]shellCarry{
	// Each prompt turn runs a new query, whose shell starts in the project directory.
	{"@zed-industries/claude-agent-acp", "0.23.1"}: {"session/prompt": carryResets, "session/load": carryResets, "session/resume": carryResets},
	// One query lives as long as the session; a load or resume of a live session reuses it.
	{"@agentclientprotocol/claude-agent-acp", "0.101.0"}: {"session/prompt": carryKeeps, "session/load": carryKeeps, "session/resume": carryKeeps},
}

// carryShell moves the filter's idea of a session's shell directory across the boundary the
// response m answers: the end of a prompt turn, a load or a resume. A load or resume of a
// session the filter holds nothing for starts a new shell in the session's directory.
func (s *Filter) carryShell(m *filters.Message, req capabilities.Request) {
	sess := s.sessions.get(req.Session)
	if sess == nil {
		return // started afresh, in the session's directory, when its first call comes
	}
	if req.Method != "session/prompt" && m.Error() != nil {
		return // nothing was loaded or resumed
	}
	root := filepath.Clean(m.Caps.Cwd(req.Session))
	if !filepath.IsAbs(root) {
		sess.shellCwd = ""
		return
	}
	switch claudeCarry(m, req.Method) {
	case carryResets:
		sess.shellCwd = root
	case carryKeeps:
	default:
		if sess.shellCwd != root {
			sess.shellCwd = ""
		}
	}
}

// claudeCarry is what the session's agent does at the boundary method.
func claudeCarry(m *filters.Message, method string) shellCarry {
	a, _ := m.Caps.Agent()
	return claudeCarries[claudeRelease{a.Name, a.Version}][method]
}
