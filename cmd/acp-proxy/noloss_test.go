package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// outputFlagSets are the output filters' flags and their combinations.
var outputFlagSets = [][]string{
	{"--terminal-output"},
	{"--deltas"},
	{"--expand-persisted-output"},
	{"--terminal-output", "--deltas"},
	{"--terminal-output", "--expand-persisted-output"},
	{"--deltas", "--expand-persisted-output"},
	{"--terminal-output", "--deltas", "--expand-persisted-output"},
}

// clientVariants are the clients every trace is replayed to: the one it was
// recorded with, and the others in its place (the agent's lines stay as
// they were: a Zed-like trace seen by a plain client is what the agent
// sends when --terminal-output asked for the extension on its behalf).
var clientVariants = map[acpclient.Model]string{
	acpclient.PlainModel:       acpclient.PlainCapabilities,
	acpclient.ZedModel:         acpclient.ZedLikeCapabilities,
	acpclient.DeltaModel:       `{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false,"_meta":{"terminal_output_delta":true}}`,
	acpclient.ContentOnlyModel: acpclient.PlainCapabilities,
}

// TestNoOutputLostOnAnyTrace is the output filters' invariant over every
// committed trace, every output flag set and every client model: what the
// client shows of each call with the proxy holds all it shows without it,
// once, in order, with the same status; or, where it could not show the
// stream without the proxy, all of the agent's output
// (acpclient.Losses).
func TestNoOutputLostOnAnyTrace(t *testing.T) {
	names := committedTraces(t)
	require.NotEmpty(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			trace, err := os.ReadFile(filepath.Join(tracesDir, name+".jsonl"))
			require.NoError(t, err)
			// The files expand-persisted-output reads are in the trace
			// ("read" records).
			recorded := recordedModel(t, trace)
			for _, mut := range traceMutations {
				if mut.name != "recorded" && len(trace) > 1<<20 {
					continue // the 4 MB snapshot trace is replayed as recorded only
				}
				mutated := mut.apply(t, trace)
				for _, model := range acpclient.Models {
					path := filepath.Join(t.TempDir(), name+".jsonl")
					require.NoError(t, os.WriteFile(path, withClientCaps(t, mutated, clientVariants[model]), 0o644))
					checkTraceVariant(t, path, recorded, model, mut.name)
				}
			}
		})
	}
}

// checkTraceVariant replays the trace at path with every output flag set
// to a client of model, recorded with a client of the recorded model.
func checkTraceVariant(t *testing.T, path string, recorded, model acpclient.Model, mutation string) {
	direct := clientView(t, model, path)
	snapshots := streamsSnapshots(t, path)
	for _, flags := range outputFlagSets {
		plainish := model == acpclient.PlainModel || model == acpclient.ContentOnlyModel
		if recorded != acpclient.PlainModel && plainish && !slices.Contains(flags, "--terminal-output") {
			continue // only --terminal-output asks for the extension on a plain client's behalf
		}
		t.Run(mutation+"/"+model.String()+"/"+strings.Join(flags, ""), func(t *testing.T) {
			replayed := filepath.Join(t.TempDir(), "out.jsonl")
			require.NoError(t, os.WriteFile(replayed, replayOK(t, append(slices.Clip(flags), path)...), 0o644))
			losses := acpclient.Losses
			switch {
			case !slices.Contains(flags, "--terminal-output") && !slices.Contains(flags, "--deltas"):
				// No stream translation asked for: terminal output the client
				// cannot read (codex-acp 2.x's, unasked) stays unread.
				losses = acpclient.LossesOfShown
			case model == acpclient.ContentOnlyModel && snapshots && !slices.Contains(flags, "--deltas"):
				// The agent's snapshots end with a final update without
				// content, which such a client shows as no output: --deltas,
				// the filter of snapshots, is the one that restates it.
				losses = acpclient.LossesOfShown
			}
			assert.Empty(t, losses(direct, clientView(t, model, replayed)), "what the replayed client lost")
		})
	}
}

// streamsSnapshots reports whether the agent of the trace at path shows a
// call's output as text snapshots and ends the call with a final update
// without content, leaving the last snapshot in place as ACP allows
// (codex-acp ≤ 0.13 without the extension).
func streamsSnapshots(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	texts := map[string]bool{}
	for rec, err := range trace.NewReader(bytes.NewReader(b)).All() {
		require.NoError(t, err)
		if rec.Dir != acp.AgentToClient || !rec.HasLine {
			continue
		}
		id, _ := rawjson.GetString(rec.Line, "params", "update", "toolCallId")
		status, _ := rawjson.GetString(rec.Line, "params", "update", "status")
		content, hasContent := rawjson.Get(rec.Line, "params", "update", "content")
		var items []struct {
			Type    string `json:"type"`
			Content struct {
				Type string `json:"type"`
			} `json:"content"`
		}
		switch {
		case id == "":
		case hasContent && json.Unmarshal(content, &items) == nil && len(items) == 1 && items[0].Content.Type == "text":
			texts[id] = true
		case !hasContent && texts[id] && (status == "completed" || status == "failed"):
			return true
		}
	}
	return false
}

// traceMutations are what the no-loss test makes of each trace: as it was
// recorded; without the final updates of its calls (the turn's response
// ends them, as codex-acp's unified exec may); and with every tool update
// sent again at once for a second session, which reuses the call ids.
var traceMutations = []struct {
	name  string
	apply func(t *testing.T, trace []byte) []byte
}{
	{"recorded", func(_ *testing.T, trace []byte) []byte { return trace }},
	{"no-final-update", func(t *testing.T, trace []byte) []byte {
		return mapAgentUpdates(t, trace, func(line []byte, _ [][]byte) [][]byte {
			if bytes.Contains(line, []byte(`"status":"completed"`)) || bytes.Contains(line, []byte(`"status":"failed"`)) {
				return nil
			}
			return [][]byte{line}
		})
	}},
	{"second-session", func(t *testing.T, trace []byte) []byte {
		return mapAgentUpdates(t, trace, func(line []byte, reads [][]byte) [][]byte {
			sid, _ := rawjson.GetString(line, "msg", "params", "sessionId")
			other, err := rawjson.Set(line, rawjson.Quote(sid+"-2"), "msg", "params", "sessionId")
			require.NoError(t, err)
			// The second session's update reads the same files again.
			return append(append([][]byte{line}, reads...), other)
		})
	}},
}

// mapAgentUpdates is trace with each record of an agent's tool update
// replaced by what fn makes of it, given the "read" records right before
// it: the files a filter reads for it (records without their newline).
func mapAgentUpdates(t *testing.T, trace []byte, fn func(record []byte, reads [][]byte) [][]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	var reads [][]byte
	for line := range bytes.Lines(trace) {
		record := bytes.TrimSuffix(line, []byte("\n"))
		if bytes.Contains(record, []byte(`,"read":{`)) {
			reads = append(reads, record)
			out.Write(line)
			continue
		}
		if !bytes.Contains(record, []byte(`"dir":"agent->client"`)) || !bytes.Contains(record, []byte(`"sessionUpdate":"tool_call`)) {
			reads = nil
			out.Write(line)
			continue
		}
		before := reads
		reads = nil
		for _, r := range fn(record, before) {
			out.Write(r)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// recordedModel is the model of the client the trace was recorded with.
func recordedModel(t *testing.T, recorded []byte) acpclient.Model {
	t.Helper()
	for rec, err := range trace.NewReader(bytes.NewReader(recorded)).All() {
		require.NoError(t, err)
		if m, _ := rawjson.GetString(rec.Line, "method"); m == "initialize" && rec.Dir == acp.ClientToAgent {
			caps, _ := rawjson.Get(rec.Line, "params", "clientCapabilities")
			return acpclient.ModelFor(caps)
		}
	}
	require.FailNow(t, "the trace has no initialize")
	return 0
}

// withClientCaps is trace with the client's initialize advertising caps.
func withClientCaps(t *testing.T, trace []byte, caps string) []byte {
	t.Helper()
	var out bytes.Buffer
	for line := range bytes.Lines(trace) {
		if bytes.Contains(line, []byte(`"method":"initialize"`)) && bytes.Contains(line, []byte(`"dir":"client->agent"`)) {
			changed, err := rawjson.Set(bytes.TrimSuffix(line, []byte("\n")), []byte(caps), "msg", "params", "clientCapabilities")
			require.NoError(t, err)
			line = append(changed, '\n')
		}
		out.Write(line)
	}
	return out.Bytes()
}

// clientView is what a client of model shows after the agent→client lines
// of the trace at path.
func clientView(t *testing.T, model acpclient.Model, path string) *acpclient.View {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	v := acpclient.NewView(model)
	for rec, err := range trace.NewReader(f).All() {
		require.NoError(t, err)
		if rec.Dir == acp.AgentToClient && rec.HasLine {
			require.NoError(t, v.Line(rec.Line))
		}
	}
	return v
}
