package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/view"
)

// appendedTraces writes the named committed traces, one after the other,
// into one file, as --record appends a session to a fixed path each time.
func appendedTraces(t *testing.T, names ...string) string {
	t.Helper()
	var both []byte
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(tracesDir, name+".jsonl"))
		require.NoError(t, err)
		both = append(both, b...)
	}
	path := filepath.Join(t.TempDir(), "appended.jsonl")
	require.NoError(t, os.WriteFile(path, both, 0o644))
	return path
}

// A page of two appended sessions shows each apart: its own agent, calls
// and timeline, though both sessions' calls are call_mock_1.
func TestViewOfTwoAppendedTracesShowsEachConnection(t *testing.T) {
	path := appendedTraces(t, "codex-0.13-plain-heredoc", "codex-0.16-zed-shell-5")
	var d view.Data
	require.NoError(t, json.Unmarshal(pageData(t, viewOK(t, "--shell-to-patch", "--deltas", path)), &d))
	require.Len(t, d.Connections, 2)
	first, second := d.Connections[0], d.Connections[1]
	assert.JSONEq(t, `{"name":"codex-acp","title":"Codex","version":"0.13.0"}`, string(first.Session.Agent))
	assert.JSONEq(t, `{"name":"codex-acp","title":"Codex","version":"0.16.0"}`, string(second.Session.Agent))
	require.Len(t, first.Calls, 2)
	require.Len(t, second.Calls, 1)
	assert.Equal(t, "edit", first.Calls[0].Kind, "shell-to-patch showed the write in the first")
	assert.Equal(t, "for i in $(seq 1 5); do echo line $i; sleep 0.05; done", second.Calls[0].Title)
	assert.Less(t, second.Duration, first.Duration+second.Duration, "each on its own clock")
	assert.Equal(t, first.Directions[1].Before.Messages+second.Directions[1].Before.Messages, d.Directions[1].Before.Messages)
}

// In the browser, the page shows the first connection and links to each;
// #connection-2 shows the second.
func TestViewOfTwoConnectionsInBrowser(t *testing.T) {
	browser(t)
	page := viewOK(t, "--shell-to-patch", appendedTraces(t, "codex-0.13-plain-heredoc", "codex-0.16-zed-shell-5"))
	r := loadPage(t, page, false, "")
	assert.Empty(t, r.Errors)
	assert.Contains(t, r.BodyText, "This trace holds 2 connections (proxy runs):")
	assert.Regexp(t, `In all: 3 tool calls · \S+ s · client → agent: \d+ messages, [\d.]+ KB → \d+ messages, [\d.]+ KB · agent → client: `, r.BodyText, "the totals")
	require.Len(t, r.Titles, 2)
	assert.True(t, strings.HasPrefix(r.Titles[0], "cat > hello.py <<'EOF'"), r.Titles[0])
	assert.Equal(t, "List /tmp/TestRecordFixturescodex-0.13-plain-heredoc3767816295/001/project", r.Titles[1])
	r = loadPageAt(t, page, "#connection-2", false, "")
	assert.Empty(t, r.Errors)
	assert.Equal(t, []string{"for i in $(seq 1 5); do echo line $i; sleep 0.05; done"}, r.Titles)
}
