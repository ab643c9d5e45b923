package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A live registry in which Codex is the Rust adapter again is a move, one
// that lists an agent the snapshot lacks is new (doctor would call it "not
// an agent of the ACP registry"), and either fails the check; the snapshot
// itself is neither.
func TestLiveFlagsAMove(t *testing.T) {
	snapshot, err := os.ReadFile(filepath.Join("..", "registry.json"))
	require.NoError(t, err)
	moved := bytes.Replace(snapshot, []byte(`"@agentclientprotocol/codex-acp"`), []byte(`"@zed-industries/codex-acp@0.16.0"`), 1)
	added := bytes.Replace(snapshot, []byte(`"agents": [`), []byte(`"agents": [{"id":"new-agent","name":"New","version":"0.1.0","distribution":{"npx":{"package":"new-agent@0.1.0"}}},`), 1)
	for _, c := range []struct {
		name   string
		served []byte
		status int
		want   string
	}{
		{"moved", moved, 1, "MOVED: codex-acp: @agentclientprotocol/codex-acp → @zed-industries/codex-acp\n"},
		{"new", added, 1, "NEW: new-agent (new-agent)\nregistry: update internal/registry/registry.json"},
		{"unchanged", snapshot, 0, "registry: 40 agents in the snapshot of 2026-08-22, 40 in http"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(c.served) }))
			defer srv.Close()
			var out, errOut bytes.Buffer
			status := live(context.Background(), srv.Client(), srv.URL+"/registry.json", srv.URL+"/%s/agent.json", &out, &errOut)
			assert.Equal(t, c.status, status, "stdout: %s\nstderr: %s", out.String(), errOut.String())
			assert.Contains(t, out.String(), c.want)
		})
	}
}

// A registry.json read before (on a machine that reaches the registry) is
// checked the same way, offline.
func TestFileChecksARegistryReadBefore(t *testing.T) {
	snapshot, err := os.ReadFile(filepath.Join("..", "registry.json"))
	require.NoError(t, err)
	dir := t.TempDir()
	same, gone := filepath.Join(dir, "same.json"), filepath.Join(dir, "gone.json")
	require.NoError(t, os.WriteFile(same, snapshot, 0o644))
	require.NoError(t, os.WriteFile(gone, []byte(`{"agents":[{"id":"qoder","name":"Qoder CLI","version":"0.2.14","distribution":{"npx":{"package":"@qoder-ai/qodercli@0.2.14","args":["--acp"]}}}]}`), 0o644))
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run([]string{"file", same}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "registry: 40 agents in the snapshot of 2026-08-22, 40 in "+same)
	out.Reset()
	assert.Equal(t, 1, run([]string{"file", gone}, &out, &errOut))
	assert.Contains(t, out.String(), "GONE: codex-acp: @agentclientprotocol/codex-acp is no longer in the registry\n")
	assert.NotContains(t, out.String(), "qoder")
	assert.Equal(t, 2, run([]string{"file", filepath.Join(dir, "none.json")}, &out, &errOut))
}

func TestPinsNameTheRegistryAgents(t *testing.T) {
	dir := t.TempDir()
	for name, pj := range map[string]string{
		"codex-acp-2.6":  `{"dependencies":{"@agentclientprotocol/codex-acp":"2.6.0"}}`,
		"codex-acp-0.16": `{"dependencies":{"@zed-industries/codex-acp":"0.16.0"}}`,
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "package.json"), []byte(pj), 0o644))
	}
	var out, errOut bytes.Buffer
	require.Equal(t, 0, pins(dir, &out, &errOut), errOut.String())
	assert.Equal(t, "codex-acp-0.16 @zed-industries/codex-acp 0.16.0 -\ncodex-acp-2.6 @agentclientprotocol/codex-acp 2.6.0 codex-acp\n", out.String())
	assert.Contains(t, errOut.String(), "registry agents no real-agent test runs: agoragentic-acp (agoragentic-mcp), auggie (@augmentcode/auggie), ")
	assert.Contains(t, errOut.String(), ", qwen-code (@qwen-code/qwen-code), ")
	assert.NotContains(t, errOut.String(), "codex-acp")
}

func TestPinsRefuseADirectoryThatPinsTwoPackages(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "two"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "two", "package.json"), []byte(`{"dependencies":{"a":"1","b":"2"}}`), 0o644))
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, pins(dir, &out, &errOut))
	assert.Contains(t, errOut.String(), "pins 2 packages, not one")
}
