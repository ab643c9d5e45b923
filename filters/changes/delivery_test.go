package changes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// clientModel is how a client draws a tool call's updates: the ways the
// clients that matter read them (docs/editors.md).
type clientModel string

const (
	// plainClient (Zed, and any client reading ACP as written): an
	// update's fields replace the call's, absent ones leave them.
	plainClient clientModel = "plain"
	// agentShell draws a call's body from each update's own content, and
	// keeps the last diffs an update carried.
	agentShell clientModel = "agent-shell"
	// codecompanion forgets a call once it is completed: a later update of
	// its id is drawn as a new call, of the kind it says (else "other").
	codecompanion clientModel = "codecompanion"
)

var clientModels = []clientModel{plainClient, agentShell, codecompanion}

// drawnCall is what a client draws for one call.
type drawnCall struct {
	id, kind, title, status string
	text                    string            // the text items, joined
	diffs                   map[string]string // path → newText
}

// draw is what a client of model m draws from the lines it got, a call per
// entry in the order drawn.
func draw(t *testing.T, m clientModel, sent []chaintest.Sent) []*drawnCall {
	t.Helper()
	var out []*drawnCall
	byID := map[string]*drawnCall{}
	for _, l := range sent {
		var msg struct {
			Method string
			Params struct {
				Update struct {
					SessionUpdate, ToolCallID, Kind, Title, Status string
					Content                                        *[]struct {
						Type    string
						Path    string
						NewText string
						Content *struct{ Text string }
					}
				}
			}
		}
		require.NoError(t, json.Unmarshal([]byte(l.Raw), &msg), l.Raw)
		u := msg.Params.Update
		if msg.Method != "session/update" || !strings.HasPrefix(u.SessionUpdate, "tool_call") {
			continue
		}
		c := byID[u.ToolCallID]
		done := c != nil && c.status == "completed"
		if c == nil || u.SessionUpdate == "tool_call" || m == codecompanion && done {
			c = &drawnCall{id: u.ToolCallID, kind: "other", diffs: map[string]string{}}
			byID[u.ToolCallID] = c
			out = append(out, c)
		}
		for dst, v := range map[*string]string{&c.kind: u.Kind, &c.title: u.Title, &c.status: u.Status} {
			if v != "" {
				*dst = v
			}
		}
		if u.Content == nil && m != agentShell {
			continue
		}
		c.text = ""
		if m != agentShell || u.Content != nil && hasDiff(*u.Content) {
			c.diffs = map[string]string{}
		}
		if u.Content == nil {
			continue
		}
		for _, it := range *u.Content {
			switch {
			case it.Type == "diff":
				c.diffs[it.Path] = it.NewText
			case it.Content != nil:
				c.text += it.Content.Text
			}
		}
	}
	return out
}

func hasDiff[T any](items []T) bool {
	b, _ := json.Marshal(items)
	return strings.Contains(string(b), `"Type":"diff"`)
}

// The update that ends a command carries its diffs, after the agent's
// content: one update, on the call, which every client draws on it — a
// client that forgets a call once it completes included.
func TestTheDiffsArriveOnTheUpdateThatEndsTheCall(t *testing.T) {
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git}, &Filter{})
		s.agent(started("c1", "cp a b"))
		s.run("cp a b")
		s.agent(ended("c1", "completed", "copied"))
		s.settle()
		var ends []string
		for _, l := range s.sent {
			if strings.Contains(l.Raw, `"toolCallId":"c1","status"`) {
				ends = append(ends, l.Raw)
			}
		}
		require.Len(t, ends, 1, "git %v: one update ends the call: %q", git, ends)
		require.Equal(t, ends, s.added(), "git %v: the diffs are on it", git)
		items := content(t, ends[0])
		assert.Equal(t, "copied", items[0]["content"].(map[string]any)["text"], "the agent's content first")
		for _, m := range clientModels {
			calls := draw(t, m, s.sent)
			require.Len(t, calls, 1, "git %v, %s: the call is drawn once", git, m)
			assert.Equal(t, map[string]string{s.dir + "/b": "a\n"}, calls[0].diffs, "git %v, %s", git, m)
			assert.Equal(t, "completed", calls[0].status, "git %v, %s", git, m)
			assert.Contains(t, calls[0].text, "copied", "git %v, %s: the output stays", git, m)
		}
	}
}

// A report not made within maxCallHold lets the call's end go alone, as
// it came; the diffs follow on an update that names the call's kind, title
// and status, which each client draws on that call (codecompanion, which
// forgot it, as the same kind and title, not "Other").
func TestALateReportFollowsOnTheSameCall(t *testing.T) {
	gate := make(chan struct{})
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: gatedTake(gate)})
	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	s.agent(ended("c1", "completed", "copied"))
	s.tick(time.Unix(0, 0).Add(maxCallHold))
	last := s.sent[len(s.sent)-1]
	// The held line itself (Message.Hold), byte for byte as it came.
	assert.Equal(t, chaintest.Sent{Dir: 1, Raw: ended("c1", "completed", "copied"), Original: true}, last, "the call's end went as it came")
	close(gate)
	s.settle()
	require.Len(t, s.added(), 1)
	for _, m := range clientModels {
		calls := draw(t, m, s.sent)
		for _, c := range calls {
			assert.Equal(t, "execute", c.kind, "%s", m)
			assert.Equal(t, "cp a b", c.title, "%s", m)
			assert.Equal(t, "completed", c.status, "%s", m)
		}
		lastCall := calls[len(calls)-1]
		assert.Equal(t, map[string]string{s.dir + "/b": "a\n"}, lastCall.diffs, "%s", m)
		assert.Contains(t, lastCall.text, "copied", "%s: the output stays", m)
		if m != codecompanion {
			assert.Len(t, calls, 1, "%s: the follow-up is drawn on the call", m)
		}
	}
}

func chaintestSent(raw string) chaintest.Sent {
	return chaintest.Sent{Dir: 1, Raw: raw, Original: true}
}

// What the agent sends while a call's end waits for its report waits
// behind it, and leaves after it as it came.
func TestLinesAfterAHeldEndKeepTheirOrder(t *testing.T) {
	gate := make(chan struct{})
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: gatedTake(gate)})
	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	chunk := update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}`)
	s.agent(ended("c1", "completed", ""), chunk)
	n := len(s.sent)
	close(gate)
	s.settle()
	require.Len(t, s.sent, n+2)
	assert.Contains(t, s.sent[n].Raw, " changed since ", "the call's end, with its diffs")
	assert.Equal(t, chaintestSent(chunk), s.sent[n+1], "then the line after it, as it came")
}

// One update carries at most Limits.MaxUpdateBytes of diffs: past it, a
// file is named with why its diff is left out.
func TestOneUpdateCarriesABoundedNumberOfBytes(t *testing.T) {
	lim := testLimits
	lim.MaxUpdateBytes = 2500
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Limits: lim})
	s.agent(started("c1", "write"))
	s.run(`for f in f1 f2 f3; do head -c 1000 /dev/zero | tr '\0' x > $f; done`)
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Len(t, diffs(t, s.dir, s.added()[0]), 2)
	assert.Contains(t, s.added()[0], fmt.Sprintf("- created f3: no diff, its diff is left out: one update carries at most %d bytes of diffs", 2500))
}
