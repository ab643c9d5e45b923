package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/realagent"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// v2Report is what testdata/v2client.mjs prints.
type v2Report struct {
	Initialize struct {
		ProtocolVersion int             `json:"protocolVersion"`
		Info            json.RawMessage `json:"info"`
		Capabilities    json.RawMessage `json:"capabilities"`
	} `json:"initialize"`
	StopReason  string            `json:"stopReason"`
	Permissions []json.RawMessage `json:"permissions"`
	Updates     []struct {
		SessionUpdate string          `json:"sessionUpdate"`
		ToolCallID    string          `json:"toolCallId"`
		Status        string          `json:"status"`
		Content       json.RawMessage `json:"content"`
	} `json:"updates"`
	raw []byte // the whole report, as printed
}

// TestACPv2Session runs an ACP v2 session (protocolVersion 2: initialize
// with capabilities and info) between a client built on the ACP SDK's
// experimental/v2 API and claude-agent-acp 0.101, which serves v2 to a
// client that asks for it, through the proxy with no filter and with every
// filter. The session must work both ways, and the proxy must relay every
// line byte for byte both ways: the output filters do not run on v2 (its
// display terminals stream the output), so --terminal-output must not
// inject its v1 capability into a v2 initialize, and --shell-to-patch,
// which runs, finds no write in this command.
func TestACPv2Session(t *testing.T) {
	for _, flags := range [][]string{nil, allFilterFlags} {
		name := "no-filter"
		if flags != nil {
			name = "all-filters"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := launch(t, "claude-0.101", []string{fiveLinesSlow}, false, "")
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			r := runV2Client(t, s, "print five lines", trace, flags)
			checkV2Session(t, r)

			recs := readTraceFile(t, trace)
			require.NotEmpty(t, recs, "an empty trace")
			require.True(t, bytes.Contains(recs[0].Line, []byte(`"protocolVersion":2`)), "the first line is not a v2 initialize: %s", shorten(recs[0].Line))
			require.True(t, bytes.Contains(recs[0].Line, []byte(`"capabilities"`)), "the first line is not a v2 initialize: %s", shorten(recs[0].Line))
			changed := 0
			for i, rec := range recs {
				if rec.HasOut || !rec.HasLine {
					changed++
					if changed <= 3 {
						t.Logf("record %d (%s): a filter changed a v2 line:\n in: %s\nout: %s", i, rec.Dir, shorten(rec.Line), shorten(bytes.Join(rec.Out, []byte("\n"))))
					}
				}
			}
			assert.Zero(t, changed, "%d of %d lines changed with %q", changed, len(recs), flags)
			t.Logf("%d lines relayed; %d updates, %d permission requests, stop reason %q", len(recs), len(r.Updates), len(r.Permissions), r.StopReason)
		})
	}
}

// checkV2Session: the agent answered in v2 and ran the command, asking
// first, and reported the call's end in v2 terms.
func checkV2Session(t *testing.T, r v2Report) {
	t.Helper()
	if assert.Equal(t, 2, r.Initialize.ProtocolVersion, "initialize response %+v, want protocolVersion 2 with info and capabilities", r.Initialize) {
		if assert.NotNil(t, r.Initialize.Info, "initialize response %+v, want protocolVersion 2 with info and capabilities", r.Initialize) {
			assert.NotNil(t, r.Initialize.Capabilities, "initialize response %+v, want protocolVersion 2 with info and capabilities", r.Initialize)
		}
	}
	assert.Equal(t, "end_turn", r.StopReason, "stop reason")
	assert.Len(t, r.Permissions, 1, "%d permission requests, want 1", len(r.Permissions))
	var kinds []string
	completed := false
	for _, u := range r.Updates {
		kinds = append(kinds, u.SessionUpdate)
		if u.SessionUpdate == "tool_call_update" && u.Status == "completed" {
			completed = true
		}
	}
	assert.True(t, completed, "no tool call completed; updates: %s", strings.Join(kinds, " "))
}

// runV2Client runs testdata/v2client.mjs against the agent of s through
// the proxy with flags, recording to tracePath, and returns its report.
func runV2Client(t *testing.T, s session, prompt, tracePath string, flags []string) v2Report {
	t.Helper()
	nodeBin, sdk := realagent.AcpSDKv2(t)
	script, err := filepath.Abs(filepath.Join("testdata", "v2client.mjs"))
	require.NoError(t, err)
	argv := append([]string{script, sdk, s.agent.Dir, prompt, "--", proxyBin(t)}, flags...)
	argv = append(append(argv, "--record", tracePath, "--"), s.agent.Argv...)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, argv...)
	cmd.Env, cmd.Dir = s.agent.Env, s.agent.Dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	require.NoError(t, err, "v2 client\nstderr:\n%s", tail(stderr.String()))
	var r v2Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &r), "v2 client report\n%s\nstderr:\n%s", tail(stdout.String()), tail(stderr.String()))
	r.raw = stdout.Bytes()
	return r
}

// v2Agents are the agents that answer ACP v2, with the mode that makes each ask permission
// for a command (launch's policy).
var v2Agents = []struct{ agent, policy string }{{"claude-0.101", ""}, {"codex-2.6", "workspace-write"}}

// v2WritesAfter are the files after codex26Writes ran on codex26Files.
var v2WritesAfter = map[string]string{heredocFile: heredocContent, "notes.txt": "a final note\nappended line\n"}

// TestACPv2ShellToPatch runs a heredoc write, an append and a sed -i, each asked for, then ls,
// through a v2 client and each v2 agent, with no filter and with every filter. With no filter
// every line passes byte for byte. With every filter the client sees each write as a v2 diff
// (changes and a git patch) in its call and in its permission request, the files hold what
// was shown, and every other line passes byte for byte. With -record-fixtures it records
// testdata/traces/<agent>-v2-writes-ask.jsonl.
func TestACPv2ShellToPatch(t *testing.T) {
	for _, a := range v2Agents {
		for _, flags := range [][]string{nil, allFilterFlags} {
			name := a.agent + "/no-filter"
			if flags != nil {
				name = a.agent + "/all-filters"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s := launch(t, a.agent, codex26Writes, false, a.policy)
				for rel, content := range codex26Files {
					require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, rel), []byte(content), 0o644))
				}
				trace := filepath.Join(t.TempDir(), "trace.jsonl")
				r := runV2Client(t, s, "write the files", trace, flags)
				checkV2Writes(t, r, s.agent.Dir, flags != nil)
				checkV2Trace(t, readTraceFile(t, trace), flags != nil)
			})
		}
	}
}

// TestRecordV2Fixtures records the v2 traces (see fixtures_test.go): as recordFixture does, the
// proxy runs the filters that read files, and what they changed is dropped from the trace.
func TestRecordV2Fixtures(t *testing.T) {
	if !*recordFixtures || *recordBig {
		t.Skip("re-records testdata/traces; run with -record-fixtures")
	}
	for _, a := range v2Agents {
		t.Run(a.agent, func(t *testing.T) {
			s := launch(t, a.agent, codex26Writes, false, a.policy)
			for rel, content := range codex26Files {
				require.NoError(t, os.WriteFile(filepath.Join(s.agent.Dir, rel), []byte(content), 0o644))
			}
			trace := filepath.Join(t.TempDir(), "trace.jsonl")
			r := runV2Client(t, s, "write the files", trace, []string{"--shell-to-patch", "--expand-persisted-output"})
			checkV2Writes(t, r, s.agent.Dir, true)
			dropFilterOutput(t, trace)
			b, err := os.ReadFile(trace)
			require.NoError(t, err)
			dst := filepath.Join(tracesDir(t), a.agent+"-v2-writes-ask.jsonl")
			require.NoError(t, os.WriteFile(dst, b, 0o644))
			t.Logf("wrote %s: %d bytes", dst, len(b))
		})
	}
}

// checkV2Writes: the session ended, every command was asked for, the files hold what the
// commands write, and, when shown, each write is a v2 diff in its call and its request.
func checkV2Writes(t *testing.T, r v2Report, dir string, shown bool) {
	t.Helper()
	assert.Equal(t, "end_turn", r.StopReason, "stop reason")
	// Both ask before each write; codex asks before ls too, claude does not.
	assert.GreaterOrEqual(t, len(r.Permissions), 3, "a permission request per write")
	for rel, want := range v2WritesAfter {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if assert.NoError(t, err, rel) {
			assert.Equal(t, want, string(got), rel)
		}
	}
	inUpdates, inRequests := 0, 0
	for _, u := range r.Updates {
		if u.SessionUpdate == "tool_call_update" && bytes.Contains(u.Content, []byte(`"git_patch"`)) {
			inUpdates++
			assert.NotContains(t, string(u.Content), "oldText", "v2 diffs have no oldText")
		}
	}
	for _, p := range r.Permissions {
		if bytes.Contains(p, []byte(`"git_patch"`)) {
			inRequests++
			var req struct {
				Subject struct {
					Type     string `json:"type"`
					ToolCall struct {
						Kind    string            `json:"kind"`
						Content []json.RawMessage `json:"content"`
					} `json:"toolCall"`
				} `json:"subject"`
			}
			require.NoError(t, json.Unmarshal(p, &req))
			assert.Equal(t, "tool_call", req.Subject.Type)
			assert.Equal(t, "edit", req.Subject.ToolCall.Kind)
		}
	}
	want := 0
	if shown {
		want = 3 // the heredoc, the append, the sed -i; not ls
	}
	assert.Equal(t, want, inUpdates, "calls shown as v2 diffs")
	assert.Equal(t, want, inRequests, "permission requests showing a v2 diff")
	if shown {
		assert.Contains(t, string(r.raw), `@@ -1,2 +1,2 @@\n-a draft note\n+a final note\n appended line\n"`, "sed's patch")
	}
}

// checkV2Trace: with no filter every line passed byte for byte; with the filters only the
// calls shown as edits and their permission requests changed, each into a v2 diff.
func checkV2Trace(t *testing.T, recs []trace.Record, filtered bool) {
	t.Helper()
	require.NotEmpty(t, recs)
	require.True(t, bytes.Contains(recs[0].Line, []byte(`"protocolVersion":2`)), "not a v2 session: %s", shorten(recs[0].Line))
	changed := 0
	for i, rec := range recs {
		if !rec.HasOut && rec.HasLine || rec.Read != nil {
			continue // a line as it came, or what a filter read from disk
		}
		changed++
		out := bytes.Join(rec.Out, []byte("\n"))
		ok := filtered && rec.HasLine && len(rec.Out) == 1 && bytes.Contains(out, []byte(`"git_patch"`)) &&
			(bytes.Contains(rec.Line, []byte(`"tool_call_update"`)) || bytes.Contains(rec.Line, []byte(`"session/request_permission"`)))
		assert.True(t, ok, "record %d (%s) changed:\n in: %s\nout: %s", i, rec.Dir, shorten(rec.Line), shorten(out))
	}
	if filtered {
		assert.Equal(t, 6, changed, "three calls and their three requests changed")
	}
}
