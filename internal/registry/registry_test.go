package registry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The snapshot testdata shows is the one embedded.
func TestTestdataIsTheEmbeddedSnapshot(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "registry", "registry.json"))
	require.NoError(t, err)
	assert.Equal(t, string(snapshotJSON), string(b))
}

// The snapshot lists the 40 agents of the registry's newest full list
// readable here (2026-08-22), each once; only crow-cli's distribution is
// not recorded.
func TestSnapshotListsEveryAgentOnce(t *testing.T) {
	r := Snapshot()
	require.Len(t, r.Agents, 40)
	assert.Equal(t, "2026-08-22", r.Date)
	seen := map[string]bool{}
	for _, e := range r.Agents {
		assert.False(t, seen[e.ID], "%s twice", e.ID)
		seen[e.ID] = true
		assert.NotEmpty(t, e.Name, e.ID)
		assert.NotEmpty(t, e.Version, e.ID)
		if e.ID != "crow-cli" {
			assert.NotEqual(t, Unrecorded, e.Installs(), e.ID)
		}
		if e.Distribution.Npx != nil {
			assert.Equal(t, e.Distribution.Npx.Package, PackageName(e.Distribution.Npx.Package),
				"%s: the snapshot keeps package names, without versions", e.ID)
		}
	}
}

func TestSnapshotLookups(t *testing.T) {
	r := Snapshot()
	// Listed since February 2026; the probe report the snapshot once
	// copied had not run it.
	qoder, ok := r.ByPackage("@qoder-ai/qodercli@0.2.14")
	require.True(t, ok)
	assert.Equal(t, "qoder", qoder.ID)
	assert.Equal(t, []string{"--acp"}, qoder.Args())
	for id, installs := range map[string]string{
		"agoragentic-acp": "agoragentic-mcp", "codebuddy-code": "@tencent-ai/codebuddy-code", "deepagents": "deepagents-acp",
		"fast-agent": "uvx fast-agent-acp", "minion-code": "uvx minion-code", "antigravity": "binary", "mistral-vibe": "binary",
		"vtcode": "binary", "crow-cli": Unrecorded,
	} {
		e, ok := r.ByID(id)
		if assert.True(t, ok, id) {
			assert.Equal(t, installs, e.Installs(), id)
		}
	}
	vibe, ok := r.ByCommand("vibe-acp")
	require.True(t, ok)
	assert.Equal(t, "mistral-vibe", vibe.ID)
	droid, _ := r.ByID("factory-droid")
	assert.Equal(t, []string{"exec", "--output-format", "acp-daemon"}, droid.Args())
	antigravity, _ := r.ByID("antigravity")
	assert.Equal(t, []string{"acp", "--print"}, antigravity.Args())

	codex, ok := r.ByPackage("@agentclientprotocol/codex-acp@2.6.0")
	require.True(t, ok)
	assert.Equal(t, "codex-acp", codex.ID)
	assert.Equal(t, "Codex", codex.Name)
	assert.Equal(t, "2.6.0", codex.Version, "newer than the list: 2.x is the registry's Codex")
	_, ok = r.ByPackage("@zed-industries/codex-acp")
	assert.False(t, ok, "the registry's Codex is not the Rust adapter")

	goose, ok := r.ByCommand("goose")
	require.True(t, ok)
	assert.Equal(t, "goose", goose.ID)
	cursor, ok := r.ByCommand("cursor-agent")
	require.True(t, ok)
	assert.Equal(t, "cursor", cursor.ID)

	opencode, ok := r.ByName("OpenCode")
	require.True(t, ok)
	assert.Equal(t, "binary", opencode.Installs())
	_, ok = r.ByName("")
	assert.False(t, ok)
}

func TestPackageName(t *testing.T) {
	for spec, want := range map[string]string{
		"@agentclientprotocol/codex-acp@2.6.0": "@agentclientprotocol/codex-acp",
		"@agentclientprotocol/codex-acp":       "@agentclientprotocol/codex-acp",
		"cline@3.0.4":                          "cline",
		"cline":                                "cline",
		"@x/y@0.85.2-preview.22":               "@x/y",
		"":                                     "",
	} {
		assert.Equal(t, want, PackageName(spec), spec)
	}
}

// liveJSON is a published registry.json in which Codex moved package,
// Gemini has a new version of the same package, OpenCode moved from a binary
// to npx, Amp is gone and a new agent came.
const liveJSON = `{"version":"1.0.0","agents":[
 {"id":"codex-acp","name":"Codex","version":"2.6.0","distribution":{"npx":{"package":"@agentclientprotocol/codex-acp@2.6.0"}}},
 {"id":"gemini","name":"Gemini CLI","version":"0.61.0","distribution":{"npx":{"package":"@google/gemini-cli@0.61.0","args":["--acp"]}}},
 {"id":"opencode","name":"OpenCode","version":"2.0.0","distribution":{"npx":{"package":"@opencode/cli@2.0.0"}}},
 {"id":"new-agent","name":"New","version":"0.1.0","distribution":{"uvx":{"package":"new-agent@0.1.0"}}}
],"extensions":[]}`

// oldJSON is a snapshot from before those changes.
const oldJSON = `{"agents":[
 {"id":"amp-acp","name":"Amp","version":"0.9.0","distribution":{"binary":{"linux-x86_64":{"cmd":"./amp-acp"}}}},
 {"id":"codex-acp","name":"Codex CLI","version":"0.11.1","distribution":{"npx":{"package":"@zed-industries/codex-acp"}}},
 {"id":"gemini","name":"Gemini CLI","version":"0.56.0","distribution":{"npx":{"package":"@google/gemini-cli"}}},
 {"id":"opencode","name":"OpenCode","version":"1.18.18","distribution":{"binary":{"linux-x86_64":{"cmd":"./opencode"}}}}
]}`

func TestMovesAreChangedPackagesNotNewVersions(t *testing.T) {
	old, err := Parse([]byte(oldJSON))
	require.NoError(t, err)
	live, err := Parse([]byte(liveJSON))
	require.NoError(t, err)
	var lines []string
	for _, c := range Moves(old, live) {
		lines = append(lines, c.String())
	}
	assert.Equal(t, []string{
		"GONE: amp-acp: binary is no longer in the registry",
		"MOVED: codex-acp: @zed-industries/codex-acp → @agentclientprotocol/codex-acp",
		"MOVED: opencode: binary → @opencode/cli",
	}, lines)
	assert.Equal(t, []string{"new-agent (uvx new-agent)"}, Added(old, live))
	assert.Empty(t, Moves(live, live))
}

func TestLiveReadsThePublishedRegistry(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "/registry.json", r.URL.Path)
		_, _ = w.Write([]byte(liveJSON))
	}))
	defer srv.Close()
	r, from, err := Live(context.Background(), srv.Client(), srv.URL+"/registry.json", srv.URL+"/%s/agent.json", nil)
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/registry.json", from)
	assert.Len(t, r.Agents, 4)
}

// When the published registry is out of reach, each agent's own file is
// read; one that is gone is no longer listed.
func TestLiveFallsBackToTheAgentFiles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/codex-acp/agent.json":
			_, _ = w.Write([]byte(`{"id":"codex-acp","name":"Codex","version":"2.6.0","distribution":{"npx":{"package":"@agentclientprotocol/codex-acp@2.6.0"}}}`))
		case "/registry.json":
			http.Error(w, "down", http.StatusBadGateway)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r, from, err := Live(context.Background(), srv.Client(), srv.URL+"/registry.json", srv.URL+"/%s/agent.json", []string{"codex-acp", "amp-acp"})
	require.NoError(t, err)
	assert.Contains(t, from, "/ID/agent.json (GET "+srv.URL+"/registry.json: 502 Bad Gateway)")
	require.Len(t, r.Agents, 1)
	assert.Equal(t, "@agentclientprotocol/codex-acp", r.Agents[0].NpmPackage())
}

func TestLiveFailsWhenNothingAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	_, _, err := Live(context.Background(), srv.Client(), srv.URL+"/registry.json", srv.URL+"/%s/agent.json", []string{"codex-acp"})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "503"), err.Error())
}
