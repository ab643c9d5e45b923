package realagent

import (
	"path/filepath"
	"testing"
)

const acpxDir = "acpx"

// Acpx returns the argv prefix that runs the acpx 0.19.1 headless ACP
// client: node and its cli.js, both absolute. Give it a private HOME: it
// keeps a session store there.
func Acpx(t testing.TB) []string {
	t.Helper()
	cli := installed(t, filepath.Join(acpxDir, "node_modules", "acpx", "dist", "cli.js"), npmHint(acpxDir))
	return []string{node(t), cli}
}
