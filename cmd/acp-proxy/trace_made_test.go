package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/internal/view"
)

// filteredRecording records, through the live proxy with flags, the
// session of the committed trace name: a stand-in agent sends what the
// real agent sent (after the client's first lines), the client's lines
// are stdin. It returns the recording's path.
func filteredRecording(t *testing.T, name string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	var agent, client []byte
	f, err := os.Open(filepath.Join(tracesDir, name+".jsonl"))
	require.NoError(t, err)
	defer f.Close()
	for rec, err := range trace.NewReader(f).All() {
		require.NoError(t, err)
		if rec.Dir == acp.ClientToAgent {
			client = append(append(client, rec.Line...), '\n')
		} else {
			agent = append(append(agent, rec.Line...), '\n')
		}
	}
	emit := filepath.Join(dir, "agent.jsonl")
	require.NoError(t, os.WriteFile(emit, agent, 0o644))
	rec := filepath.Join(dir, "recorded.jsonl")
	args := append(append([]string{"--record", rec}, flags...), "--", fakeAgent(t), "--wait-lines", "3", "--emit", emit)
	cmd := exec.Command(proxyBin(t), args...)
	cmd.Stdin = strings.NewReader(string(client))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return rec
}

// replay --summary of a trace recorded through filters says how it was
// made (the proxy's version and command line, the agent's) and what the
// recording's filters changed: with no filter flags, "after" is what the
// recording proxy sent; with flags, what they make of what it received.
func TestReplaySummaryOfAFilteredRecordingSaysHowItWasMade(t *testing.T) {
	rec := filteredRecording(t, "codex-0.13-plain-shell-900", "--deltas", "--terminal-output")
	for _, c := range []struct {
		name  string
		flags []string
		want  []string
	}{
		{"no filter flags", nil, []string{
			"after: what the recording proxy sent (its filters' work",
			"agent->client                                             911      4.03 MiB              12     44.7 KiB               0.011\n",
			"for i in $(seq 1 900); do echo line $i; done              902      4.03 MiB               3     36.3 KiB               0.009\n",
		}},
		{"the recording's flags", []string{"--deltas", "--terminal-output"}, []string{
			"after: what this replay's filters make of the lines the recording proxy received",
			"agent->client                                             911      4.03 MiB              12     44.7 KiB               0.011\n",
			"\n--deltas  ",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := replayRun(t, append(append([]string{"--summary"}, c.flags...), rec)...)
			require.Equal(t, 0, code, stderr)
			assert.Regexp(t, `\nrecorded by acp-proxy \S+ on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: acp-proxy --record \S+recorded.jsonl --deltas --terminal-output -- \S+fakeagent\S* --wait-lines 3 --emit \S+agent.jsonl\n`, out)
			for _, want := range c.want {
				assert.Contains(t, out, want)
			}
		})
	}
	// The README shows these two lines, for a recording made with the
	// same flags.
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?m)^recorded by acp-proxy .*\n(after: .*)\n").FindSubmatch(readme)
	require.NotNil(t, m, "the README shows a summary's recorded line")
	assert.Regexp(t, `^recorded by acp-proxy \S+ on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: acp-proxy --record \S+ --deltas --terminal-output -- codex-acp\n`, string(m[0]))
	_, out, _ := replayRun(t, "--summary", rec)
	assert.Contains(t, out, "\n"+string(m[1])+"\n")

	code, js, stderr := replayRun(t, "--summary", "--json", rec)
	require.Equal(t, 0, code, stderr)
	var report trace.Report
	require.NoError(t, json.Unmarshal([]byte(js), &report))
	require.NotNil(t, report.Recording)
	assert.Equal(t, []string{"--record", rec, "--deltas", "--terminal-output"}, report.Recording.Args)
	assert.Equal(t, binaryVersion(t), report.Recording.Proxy)
	assert.True(t, report.AfterAsRecorded)
	assert.Equal(t, int64(12), report.Directions[1].After.Messages)
}

// A trace of many connections gets totals before each connection's
// figures: every direction summed, and the largest calls of them all.
func TestReplaySummaryOfManyConnectionsHasTotals(t *testing.T) {
	names := []string{"codex-0.13-plain-shell-5", "codex-0.16-zed-shell-5", "claude-0.23-plain-5"}
	path := appendedTraces(t, names...)
	code, js, stderr := replayRun(t, "--summary", "--json", "--deltas", path)
	require.Equal(t, 0, code, stderr)
	var report trace.Report
	require.NoError(t, json.Unmarshal([]byte(js), &report))
	require.Len(t, report.Connections, 3)
	var before, after int64
	var secs float64
	for _, c := range report.Connections {
		before += c.Directions[1].Before.Bytes
		after += c.Directions[1].After.Bytes
		secs += c.Seconds
	}
	assert.Equal(t, before, report.Directions[1].Before.Bytes)
	assert.Equal(t, after, report.Directions[1].After.Bytes)

	code, out, stderr := replayRun(t, "--summary", "--deltas", path)
	require.Equal(t, 0, code, stderr)
	head := regexp.MustCompile(`^3 connections \(proxy runs\), (\S+) s in all; totals:\n`).FindStringSubmatch(out)
	require.NotNil(t, head, out)
	assert.Equal(t, fmt.Sprintf("%.3f", secs), head[1], "the connections' times summed")
	totals := out[:strings.Index(out, "\nconnection 1 of 3")]
	assert.Contains(t, totals, "--deltas  ", "the filters' totals")
	assert.Contains(t, totals, "[3] ", "the largest calls of all, by connection")
	for i := range names {
		assert.Contains(t, out, "\nconnection "+string(rune('1'+i))+" of 3: ")
	}
}

// deadAgentRecording records, with flags, a session whose agent dies before
// it answers initialize.
func deadAgentRecording(t *testing.T, flags ...string) (path, agent string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "dead.jsonl")
	agent = fakeAgent(t)
	args := append(append([]string{"--record", path}, flags...), "--", agent, "--wait-lines", "1", "--exit", "3")
	cmd := exec.Command(proxyBin(t), args...)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 3, ee.ExitCode())
	return path, agent
}

// view shows how a trace was made, and names an agent that died before it
// named itself by its recorded command, not "unknown".
func TestViewOfARecordingShowsHowItWasMade(t *testing.T) {
	path, agent := deadAgentRecording(t, "--deltas")
	var d view.Data
	page := viewOK(t, path)
	require.NoError(t, json.Unmarshal(pageData(t, page), &d))
	require.NotNil(t, d.Recording)
	assert.Empty(t, d.Session.Agent, "it never answered initialize")
	assert.Equal(t, agent+" --wait-lines 1 --exit 3", d.Recording.Agent)
	assert.Equal(t, "acp-proxy --record "+path+" --deltas -- "+agent+" --wait-lines 1 --exit 3", d.Recording.Command)
	assert.Equal(t, binaryVersion(t), d.Recording.Proxy)

	browser(t)
	r := loadPage(t, page, false, "")
	assert.Empty(t, r.Errors)
	assert.Contains(t, r.BodyText, agent+" --wait-lines 1 --exit 3 (never named itself) ⇄ ")
	assert.Contains(t, r.BodyText, "recorded by acp-proxy "+binaryVersion(t)+" on ")
	assert.NotContains(t, r.BodyText, "unknown ⇄")
}
