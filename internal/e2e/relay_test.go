package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// allFilterFlags turns on every filter the proxy has.
var allFilterFlags = []string{"--terminal-output", "--deltas", "--shell-to-patch", "--expand-persisted-output"}

// relayAgents are the agents whose relay TestRelayRealAgents proves; the
// older ones are proved by TestRecordFixtures (no filter) and
// TestLiveAndReplayAgree (filters).
var relayAgents = []string{"claude-0.101", "gemini", "gemini-nopty", "opencode"}

// relayLines is the command's line count: enough for opencode to stream
// several snapshots, small enough to take a second.
const relayLines = 300

// TestRelayRealAgents runs each agent, for a plain and a Zed-like client,
// through `acp-proxy --record` with no filter and with every filter:
//
//   - No filter: the proxy changed nothing (its trace has no replaced
//     line), the client received exactly the agent's lines and the agent
//     exactly the client's: a direct connection, byte for byte.
//   - Every filter: every message that is not a tool update reaches the
//     other side unchanged and in order (on the agent's side, all but the
//     initialize request, where --terminal-output asks for the
//     extension; on the client's, permission requests but for their
//     toolCall, which the filters may show as they show the call); every tool call the agent announced reaches the client,
//     with every output line the agent reported shown, in order, once.
func TestRelayRealAgents(t *testing.T) {
	for _, agent := range relayAgents {
		for _, zed := range []bool{false, true} {
			for _, filtered := range []bool{false, true} {
				client, mode := "plain", "no-filter"
				if zed {
					client = "zed"
				}
				if filtered {
					mode = "all-filters"
				}
				t.Run(fmt.Sprintf("%s/%s/%s", agent, client, mode), func(t *testing.T) {
					t.Parallel()
					var flags []string
					if filtered {
						flags = allFilterFlags
					}
					relay(t, agent, zed, flags)
				})
			}
		}
	}
}

func relay(t *testing.T, agent string, zed bool, flags []string) {
	s := launch(t, agent, []string{agentLinesCommand(agent, relayLines)}, false, "")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	view := newOutputView()
	opts := acpclient.Options{
		Argv:         append(append(append([]string{proxyBin(t)}, flags...), "--record", trace, "--"), s.agent.Argv...),
		Env:          s.agent.Env,
		Dir:          s.agent.Dir,
		Capabilities: clientCaps(zed),
		OnLine:       view.onLine(),
	}
	var c *acpclient.Client
	t.Run("session", func(t *testing.T) { // its end stops the proxy: the trace is complete
		c = acpclient.Run(t, opts, "print the lines")
		if p := c.Problems(); len(p) > 0 {
			t.Errorf("client problems: %q", p)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	if got := s.replies(); len(got) < 2 || got[len(got)-1] != "answer" {
		t.Fatalf("model replies %q, want the tool call then the answer", got)
	}
	recs := readTraceFile(t, trace)
	agentGot, agentSent := delivered(recs, filters.ClientToAgent), linesOf(recs, filters.AgentToClient)
	got, sent := clientLines(c), clientSent(c)

	if len(flags) == 0 {
		for i, r := range recs {
			if r.HasOut || !r.HasLine {
				t.Fatalf("record %d: the proxy replaced a line with no filter on", i)
			}
		}
		sameLines(t, "agent→client: what the client got vs what the agent sent", agentSent, got)
		sameLines(t, "client→agent: what the agent got vs what the client sent", sent, agentGot)
		return
	}
	sameLines(t, "client→agent after initialize", sent[1:], agentGot[1:])
	if !bytes.Contains(sent[0], []byte(`"initialize"`)) {
		t.Fatalf("the client's first line is not initialize: %s", shorten(sent[0]))
	}
	sameLines(t, "agent→client without tool updates", outsideToolCalls(t, agentSent), outsideToolCalls(t, got))
	wantCalls, gotCalls := finalStates(t, agentSent), finalStates(t, got)
	for id := range wantCalls {
		if gotCalls[id] == nil {
			t.Errorf("tool call %s never reached the client", id)
		}
	}
	call := view.only(t)
	ref := agentLines(agentView(t, trace).only(t))
	shown := view.shown(call)
	checkLines(t, "client", shown, ref)
	if call.status != "completed" {
		t.Errorf("the call ended %q", call.status)
	}
	if !zed && len(view.extension) > 0 {
		t.Errorf("a client without the extension got %q", view.extension[:min(3, len(view.extension))])
	}
	t.Logf("%d of the %d lines the agent reported shown; %d bytes to the client, the agent sent %d", len(numbered(shown)), len(ref), bytesOf(got), bytesOf(agentSent))
	if strings.HasPrefix(agent, "gemini") && agent != "gemini-nopty" && len(ref) != 0 {
		t.Errorf("gemini on its PTY reported %d lines; docs/agents.md says it shows none", len(ref))
	}
}

// outsideToolCalls are the lines that are not tool updates, in order, with
// the toolCall of permission requests left out.
func outsideToolCalls(t *testing.T, lines [][]byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, l := range withoutToolUpdates(t, lines) {
		if !bytes.Contains(l, []byte(`"session/request_permission"`)) {
			out = append(out, l)
			continue
		}
		var msg map[string]any
		if err := json.Unmarshal(l, &msg); err != nil {
			t.Fatalf("permission request: %v", err)
		}
		if params, ok := msg["params"].(map[string]any); ok {
			delete(params, "toolCall")
		}
		b, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func bytesOf(lines [][]byte) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}
