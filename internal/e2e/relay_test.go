package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// allFilterFlags turns on every filter the proxy has.
var allFilterFlags = []string{"--terminal-output", "--deltas", "--shell-to-patch", "--expand-persisted-output"}

// relayAgents are the agents whose relay TestRelayRealAgents proves; the
// older ones are proved by TestRecordFixtures (no filter) and
// TestLiveAndReplayAgree (filters), and join them for the compatibility
// matrix (matrixEnv).
var relayAgents = []string{"codex-2.6", "claude-0.101", "gemini", "gemini-nopty", "opencode", "kilo", "qwen", "cline", "pi"}

// matrixEnv names the file TestRelayRealAgents writes its compatibility
// matrix to (scripts/compat-latest sets it); with it, every agent the suite
// knows is run, not only relayAgents.
const matrixEnv = "E2E_MATRIX"

var matrixAgents = []string{"codex-0.16", "codex-2.6", "claude-0.23", "claude-0.101", "gemini", "gemini-nopty", "opencode", "kilo", "qwen", "cline", "pi"}

// matrixRow is one run of TestRelayRealAgents, as the matrix shows it.
type matrixRow struct {
	agent, version, client, filters string
	ran, ok                         bool
	bytes                           int // to the client
	shown, reported                 int // output lines the client shows, and the agent reported
	live                            int // updates that showed more output lines before the end
}

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
	agents := relayAgents
	var (
		mu   sync.Mutex
		rows []*matrixRow
	)
	if path := os.Getenv(matrixEnv); path != "" {
		agents = matrixAgents
		t.Cleanup(func() { writeMatrix(t, path, rows) })
	}
	for _, agent := range agents {
		for _, zed := range []bool{false, true} {
			for _, filtered := range []bool{false, true} {
				if agent == "gemini-nopty" && !filtered && os.Getenv(matrixEnv) == "" {
					continue // gemini's transparency is proved on its default shell
				}
				row := &matrixRow{agent: agent, client: "plain", filters: "none"}
				if zed {
					row.client = "zed"
				}
				if filtered {
					row.filters = "all"
				}
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
				t.Run(fmt.Sprintf("%s/%s/%s", agent, row.client, row.filters), func(t *testing.T) {
					t.Parallel()
					row.ran = true
					t.Cleanup(func() { row.ok = !t.Failed() })
					var flags []string
					if filtered {
						flags = allFilterFlags
					}
					relay(t, agent, zed, flags, row)
				})
			}
		}
	}
}

// writeMatrix writes the rows as a table: one line per agent, version,
// client and filter set.
func writeMatrix(t *testing.T, path string, rows []*matrixRow) {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "agent\tversion\tclient\tfilters\tresult\tbytes to client\tlines visible\tlive updates")
	for _, r := range rows {
		if !r.ran {
			continue // not selected by -run
		}
		result := "FAIL"
		if r.ok {
			result = "pass"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d/%d\t%d\n", r.agent, r.version, r.client, r.filters, result, r.bytes, r.shown, r.reported, r.live)
	}
	w.Flush()
	assert.NoError(t, os.WriteFile(path, b.Bytes(), 0o644), "%s", matrixEnv)
}

func relay(t *testing.T, agent string, zed bool, flags []string, row *matrixRow) {
	s := launch(t, agent, []string{agentLinesCommand(agent, relayLines)}, false, "")
	row.version = s.agent.Version
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	view := newOutputView()
	feed := view.onLine()
	shownLines := 0
	opts := acpclient.Options{
		Argv:         append(append(append([]string{proxyBin(t)}, flags...), "--record", trace, "--"), s.agent.Argv...),
		Env:          s.agent.Env,
		Dir:          s.agent.Dir,
		Capabilities: clientCaps(zed),
		// Live updates: those that show more output lines while the call
		// runs.
		OnLine: func(l acpclient.Line) {
			feed(l)
			if l.Update == nil || l.Update.ToolCallID == "" {
				return
			}
			view.mu.Lock()
			c := view.calls[l.Update.ToolCallID]
			n, ended := len(numbered(c.shownLocked())), !c.end.IsZero()
			view.mu.Unlock()
			if n > shownLines && !ended {
				row.live++
			}
			shownLines = n
		},
	}
	var c *acpclient.Client
	t.Run("session", func(t *testing.T) { // its end stops the proxy: the trace is complete
		c = acpclient.Run(t, opts, "print the lines")
		p := c.Problems()
		assert.Empty(t, p, "client problems: %q", p)
	})
	if t.Failed() {
		t.FailNow()
	}
	modelReplies := s.replies()
	require.GreaterOrEqual(t, len(modelReplies), 2, "model replies %q, want the tool call then the answer", modelReplies)
	require.Equal(t, "answer", modelReplies[len(modelReplies)-1], "model replies %q, want the tool call then the answer", modelReplies)
	recs := readTraceFile(t, trace)
	agentGot, agentSent := delivered(recs, acp.ClientToAgent), linesOf(recs, acp.AgentToClient)
	got, sent := clientLines(c), clientSent(c)
	call := view.only(t)
	ref := agentLines(agentView(t, trace).only(t))
	shown := view.shown(call)
	row.bytes, row.shown, row.reported = bytesOf(got), len(numbered(shown)), len(ref)

	if len(flags) == 0 {
		for i, r := range recs {
			require.False(t, r.HasOut, "record %d: the proxy replaced a line with no filter on", i)
			require.True(t, r.HasLine, "record %d: the proxy replaced a line with no filter on", i)
		}
		sameLines(t, "agent→client: what the client got vs what the agent sent", agentSent, got)
		sameLines(t, "client→agent: what the agent got vs what the client sent", sent, agentGot)
		return
	}
	sameLines(t, "client→agent after initialize", sent[1:], agentGot[1:])
	require.True(t, bytes.Contains(sent[0], []byte(`"initialize"`)), "the client's first line is not initialize: %s", shorten(sent[0]))
	sameLines(t, "agent→client without tool updates", outsideToolCalls(t, agentSent), outsideToolCalls(t, got))
	wantCalls, gotCalls := finalStates(t, agentSent), finalStates(t, got)
	for id := range wantCalls {
		assert.NotNil(t, gotCalls[id], "tool call %s never reached the client", id)
	}
	checkLines(t, "client", shown, ref)
	assert.Equal(t, "completed", call.status, "the call ended %q", call.status)
	if !zed {
		assert.Empty(t, view.extension, "a client without the extension got %q", view.extension[:min(3, len(view.extension))])
	}
	t.Logf("%d of the %d lines the agent reported shown; %d bytes to the client, the agent sent %d", len(numbered(shown)), len(ref), bytesOf(got), bytesOf(agentSent))
	if strings.HasPrefix(agent, "gemini") && agent != "gemini-nopty" {
		assert.Empty(t, ref, "gemini on its PTY reported %d lines; docs/agents.md says it shows none", len(ref))
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
		require.NoError(t, json.Unmarshal(l, &msg), "permission request")
		if params, ok := msg["params"].(map[string]any); ok {
			delete(params, "toolCall")
		}
		b, err := json.Marshal(msg)
		require.NoError(t, err)
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
