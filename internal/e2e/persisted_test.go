package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/mockmodel"
	"github.com/acp-proxy/acp-proxy/internal/realagent"
)

// expandFlags are the flags of the 35,001-line runs: the terminal
// translation and the saved output expanded, up to 1 MiB.
var expandFlags = []string{"--terminal-output", "--expand-persisted-output", "--max-output-bytes=1048576"}

// TestPersistedOutputClaude101 runs claude-agent-acp 0.101 with a command
// printing over 30,000 bytes (the CLI keeps the first 30,000 and saves
// the whole output to a file) through the proxy, to a plain and a Zed-like
// client: 35,001 lines with the flags, `line 0` to `line 35000`, whose
// 30,000th byte is the newline after `line 3110` (the CLI trims it: only the
// note's own newline stands before the note), and `line 1` to `line 4000` for
// the other paths. With --expand-persisted-output the client shows every line, once,
// in order, and the whole output travels once; without it, the client shows
// what the agent showed, without raw <persisted-output> tags, naming the
// saved file.
func TestPersistedOutputClaude101(t *testing.T) {
	cases := []struct {
		zed         bool
		first, last int // the lines: "line first" to "line last"
		flags       []string
		expand      bool
		heavy       bool // only with E2E_REPORT set: each run takes 2-10 s
	}{
		{false, 0, bigLines - 1, expandFlags, true, false},
		{true, 0, bigLines - 1, expandFlags, true, false},
		{false, 1, persistedLines, []string{"--terminal-output"}, false, false},
		{true, 1, persistedLines, []string{"--terminal-output"}, false, true},
		// The agent's own fenced text and rawOutput, no terminal.
		{false, 1, persistedLines, []string{"--expand-persisted-output"}, true, true},
	}
	for _, c := range cases {
		client := "plain"
		if c.zed {
			client = "zed"
		}
		name := fmt.Sprintf("%s/%d-%d/%s", client, c.first, c.last, strings.ReplaceAll(strings.Join(c.flags, ""), "--", "+"))
		t.Run(name, func(t *testing.T) {
			if testing.Short() && c.last > 1000 {
				t.Skip("35,001 lines; skipped with -short")
			}
			if c.heavy && os.Getenv("E2E_REPORT") == "" {
				t.Skip("one more claude run; set E2E_REPORT to run it")
			}
			command := fmt.Sprintf("for i in $(seq %d %d); do echo line $i; done", c.first, c.last)
			model := mockmodel.NewMessages(t, mockmodel.Script{Commands: []string{command}})
			agent := realagent.Claude(t, realagent.ClaudeOptions{Version: "0.101", ModelURL: model.URL()})
			last := fmt.Sprintf("line %d", c.last)
			run := runSaved(t, agent, c.zed, c.flags, last)
			if t.Failed() {
				return
			}
			view, stats := run.view, run.stats
			call := view.only(t)
			shown := view.shown(call)
			if assert.NotContains(t, shown, "<persisted-output>", "the client shows raw <persisted-output> tags") {
				assert.NotContains(t, call.rawOutput, "<persisted-output>", "the client shows raw <persisted-output> tags")
			}
			if !c.zed {
				assert.Empty(t, view.extension, "a client without the extension got %q", view.extension[:min(3, len(view.extension))])
			}
			n := len(numbered(shown))
			t.Logf("%d lines shown, %d messages, %d bytes to the client", n, stats.Messages, stats.Bytes)
			if c.expand {
				all := map[int]bool{}
				for i := c.first; i <= c.last; i++ {
					all[i] = true
				}
				checkLines(t, "client", shown, all)
				assert.Len(t, numbered(shown), len(all), "lines shown")
				// Once; for a client without the extension, at most once more in
				// the final update, which always carries what it shows (agent-shell
				// renders each update's own content).
				got, most := run.whole, 1
				if !c.zed {
					most = 2
				}
				if assert.Positive(t, got, "no message carries the output's last line") {
					assert.LessOrEqual(t, got, most, "%d messages carry the output's last line, want at most %d", got, most)
				}
				return
			}
			checkClipped(t, shown, agent.ConfigDir)
		})
	}
}

var savedNote = regexp.MustCompile(`\n\[Output truncated \(\d+ bytes total\): full output saved to (/\S+)\]$`)

// checkClipped checks what the client shows of an output the agent clipped:
// lines 1, 2, … up to where the clip cut one, and the note naming the saved
// file, which is under the agent's config dir.
func checkClipped(t *testing.T, shown, configDir string) {
	t.Helper()
	m := savedNote.FindStringSubmatchIndex(shown)
	require.NotNil(t, m, "the client does not show the note naming the saved file: …%q", shown[max(0, len(shown)-300):])
	path := shown[m[2]:m[3]]
	assert.True(t, strings.HasPrefix(path, configDir+string(filepath.Separator)), "the note names %s, not a file under %s", path, configDir)
	text := shown[:m[0]]
	text = text[:strings.LastIndexByte(text, '\n')+1] // the clip cuts the last line short
	for i, n := range numbered(text) {
		require.Equal(t, i+1, n, "line %d shown in place %d", n, i+1)
	}
}

// savedRun is what a client received in one run.
type savedRun struct {
	view  *outputView
	stats acpclient.Stats
	whole int // lines that carry the output's last line, last
}

// runSaved runs one prompt of agent through `acp-proxy flags`, for a
// Zed-like client or a plain one.
func runSaved(t *testing.T, agent *realagent.Agent, zed bool, flags []string, last string) savedRun {
	t.Helper()
	r := savedRun{view: newOutputView()}
	var whole atomic.Int32
	onLine := r.view.onLine()
	opts := acpclient.Options{
		Argv:         append(append(append([]string{proxyBin(t)}, flags...), "--"), agent.Argv...),
		Env:          agent.Env,
		Dir:          agent.Dir,
		Capabilities: clientCaps(zed),
		Timeout:      2 * time.Minute,
		OnLine: func(l acpclient.Line) {
			if bytes.Contains(l.Raw, []byte(last)) {
				whole.Add(1)
			}
			onLine(l)
		},
	}
	t.Run("session", func(t *testing.T) {
		cl := acpclient.Start(t, opts)
		cl.Initialize()
		sid := cl.NewSession(agent.Dir)
		stop := cl.Prompt(sid, "print the lines")
		assert.Equal(t, "end_turn", stop, "stopReason %q", stop)
		r.stats = cl.Stats()
		p := cl.Problems()
		assert.Empty(t, p, "client problems: %q", p)
	})
	r.whole = int(whole.Load())
	return r
}

// TestPersistedOutputOpencode runs opencode with a 2,000-line command: its
// final update shows the last 1,999 lines after a note naming the file the
// whole output was saved to. With --expand-persisted-output the client
// shows all 2,000, once, in order; without, what opencode shows.
func TestPersistedOutputOpencode(t *testing.T) {
	cases := []struct {
		zed    bool
		flags  []string
		expand bool
		heavy  bool // only with E2E_REPORT set: opencode takes 10-40 s a run
	}{
		{false, []string{"--deltas", "--terminal-output", "--expand-persisted-output"}, true, false},
		{true, []string{"--deltas", "--terminal-output", "--expand-persisted-output"}, true, false},
		{false, []string{"--expand-persisted-output"}, true, true},
		{false, []string{"--deltas", "--terminal-output"}, false, true},
	}
	for _, c := range cases {
		client := "plain"
		if c.zed {
			client = "zed"
		}
		t.Run(client+"/"+strings.ReplaceAll(strings.Join(c.flags, ""), "--", "+"), func(t *testing.T) {
			if c.heavy && os.Getenv("E2E_REPORT") == "" {
				t.Skip("one more opencode run; set E2E_REPORT to run it")
			}
			model := mockmodel.NewChat(t, mockmodel.Script{Commands: []string{linesCommand(opencodeLines)}})
			agent := realagent.Opencode(t, realagent.OpencodeOptions{ModelBaseURL: model.BaseURL(), Ask: true})
			run := runSaved(t, agent, c.zed, c.flags, fmt.Sprintf("line %d", opencodeLines))
			if t.Failed() {
				return
			}
			call := run.view.only(t)
			shown := run.view.shown(call)
			t.Logf("%d lines shown, %d messages, %d bytes to the client", len(numbered(shown)), run.stats.Messages, run.stats.Bytes)
			assert.Equal(t, "completed", call.status, "the call ended %q", call.status)
			if !c.expand {
				assert.Contains(t, shown, "Full output saved to: ", "the client does not show the note naming the saved file: %q", shown[:min(len(shown), 300)])
				return
			}
			all := map[int]bool{}
			for i := 1; i <= opencodeLines; i++ {
				all[i] = true
			}
			checkLines(t, "client", shown, all)
		})
	}
}
