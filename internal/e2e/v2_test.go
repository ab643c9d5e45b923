package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/realagent"
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
// line byte for byte both ways: no filter knows the v2 shapes (tool calls
// without tool_call, display terminals, structured diffs, v2
// capabilities), so each must stand aside, and --terminal-output must not
// inject its v1 capability into a v2 initialize.
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
