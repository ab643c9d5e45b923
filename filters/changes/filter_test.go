package changes

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/filters/shellpatch"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/rawjson"
)

// session is a chain ending in show-changes (after the filters before),
// whose session "S" runs in a fresh tree.
type session struct {
	t     *testing.T
	chain *filters.Chain
	dir   string
	sent  []chaintest.Sent // what left the chain for the client
	f     *Filter
}

func newSession(t *testing.T, tr tree, f *Filter, before ...filters.Filter) *session {
	return newSessionIn(t, tr.make(t), f, before...)
}

// newSessionIn is newSession in the directory dir.
func newSessionIn(t *testing.T, dir string, f *Filter, before ...filters.Filter) *session {
	c := filters.NewChain(capabilities.New(), append(before, f)...)
	chaintest.Run(t, c, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, dir))
	chaintest.Run(t, c, acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
	chaintest.Run(t, c, acp.ClientToAgent, `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`)
	s := &session{t: t, chain: c, dir: dir, f: f}
	s.rested()
	return s
}

// rested waits until the session's rest is taken: the agent a test plays
// runs its commands at once, where a model takes a while.
func (s *session) rested() {
	s.f.rests.mu.Lock()
	rs := s.f.rests.m["S"]
	s.f.rests.mu.Unlock()
	if rs != nil && rs.snap != nil {
		<-rs.snap.done
	}
}

// agent sends lines from the agent, keeping what reaches the client.
func (s *session) agent(lines ...string) {
	s.t.Helper()
	s.sent = append(s.sent, chaintest.Run(s.t, s.chain, acp.AgentToClient, lines...)...)
}

// run runs script in the session's directory, as the agent's shell would.
func (s *session) run(script string) { s.t.Helper(); sh(s.t, s.dir, script) }

// settle waits for the reports being made and keeps the updates sent,
// then for the rest taken after them.
func (s *session) settle() {
	s.t.Helper()
	s.drain()
	s.rested()
}

// drain waits for the reports being made and keeps the updates sent.
func (s *session) drain() {
	s.t.Helper()
	require.NoError(s.t, s.chain.Drain(acp.AgentToClient, time.Unix(0, 0), func(l filters.Line) error {
		s.sent = append(s.sent, chaintest.Sent{Dir: l.Dir, Raw: string(l.Raw), Original: l.Original})
		return nil
	}))
}

// added are the updates the filter added (lines no agent sent).
func (s *session) added() []string {
	var out []string
	for _, l := range s.sent {
		if strings.Contains(l.Raw, "acp-proxy: ") && strings.Contains(l.Raw, " changed since ") {
			out = append(out, l.Raw)
		}
	}
	return out
}

func update(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":` + u + `}}`
}

// started is an execute call's tool_call, its command in rawInput.
func started(id, script string) string {
	return update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":%q,"title":%q,"kind":"execute","status":"pending","rawInput":{"command":%q}}`, id, script, script))
}

// ended is the call's last update, with the agent's own content.
func ended(id, status, output string) string {
	return update(fmt.Sprintf(`{"sessionUpdate":"tool_call_update","toolCallId":%q,"status":%q,"content":[{"type":"content","content":{"type":"text","text":%q}}]}`, id, status, output))
}

// content is the content of the update raw.
func content(t *testing.T, raw string) []map[string]any {
	t.Helper()
	v, ok := rawjson.Get([]byte(raw), "params", "update", "content")
	require.True(t, ok, raw)
	var items []map[string]any
	require.NoError(t, json.Unmarshal(v, &items))
	return items
}

// diffs are the diff items of raw: path relative to dir → [oldText, newText].
func diffs(t *testing.T, dir, raw string) map[string][2]any {
	out := map[string][2]any{}
	for _, it := range content(t, raw) {
		if it["type"] == "diff" {
			rel, _ := filepath.Rel(dir, it["path"].(string))
			out[rel] = [2]any{it["oldText"], it["newText"]}
		}
	}
	return out
}

func TestAfterACommandOneUpdateAddsItsDiffsBesideTheAgentsContent(t *testing.T) {
	for _, git := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "no git"}[git], func(t *testing.T) {
			s := newSession(t, tree{files: map[string]string{"a": "one\n", "old": "gone\n"}, git: git}, &Filter{})
			s.agent(started("c1", "..."))
			s.run(`python3 -c "open('made.txt','w').write('written by python\n')" && cp a b && rm old`)
			s.agent(ended("c1", "completed", "the command's output"))
			s.settle()
			require.Len(t, s.added(), 1)
			items := content(t, s.added()[0])
			assert.Equal(t, "the command's output", items[0]["content"].(map[string]any)["text"], "the agent's content comes first, kept")
			note := items[1]["content"].(map[string]any)["text"].(string)
			assert.Contains(t, note, "- deleted old")
			assert.Equal(t, map[string][2]any{
				"made.txt": {nil, "written by python\n"},
				"b":        {nil, "one\n"},
				"old":      {"gone\n", ""},
			}, diffs(t, s.dir, s.added()[0]))
		})
	}
}

func TestNothingChangedNothingAdded(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "x"}, git: true}, &Filter{})
	s.agent(started("c1", "cat a"))
	s.run("cat a >/dev/null")
	s.agent(ended("c1", "completed", "x"))
	s.settle()
	assert.Empty(t, s.added())
}

func TestOverlappingCallsShowAChangeOnceAndNameEachOther(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
	s.agent(started("long", "npm run dev"), started("short", "cp a b"))
	s.run("cp a b")
	s.agent(ended("short", "completed", ""))
	s.settle()
	s.run("echo log >> dev.log")
	s.agent(ended("long", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 2)
	assert.Equal(t, map[string][2]any{"b": {nil, "a\n"}}, diffs(t, s.dir, s.added()[0]))
	assert.Contains(t, s.added()[0], `other calls ran at the same time, so a change may be theirs: \"npm run dev\" (long)`)
	assert.Equal(t, map[string][2]any{"dev.log": {nil, "log\n"}}, diffs(t, s.dir, s.added()[1]), "b, shown once, is not shown again")
	assert.Contains(t, s.added()[1], `\"cp a b\" (short)`)
}

func TestAChangeBetweenCallsIsNotPinnedOnTheNext(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}}, &Filter{})
	s.agent(started("c1", "true"))
	s.agent(ended("c1", "completed", ""))
	s.settle()
	s.run("echo between > between.txt")
	s.agent(started("c2", "true"))
	s.agent(ended("c2", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], "1 file under "+s.dir+" changed since the previous command ended:",
		"the update says since when: the change is not said to be the command's")
}

func TestACancelledCallShowsWhatItChangedWhenItsTurnEnds(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
	s.agent(started("c1", "sleep 100"))
	s.run("echo partial > out.txt")
	s.agent(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`)
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], "this command was cancelled, or never said it ended; 1 file under ")
	assert.Equal(t, map[string][2]any{"out.txt": {nil, "partial\n"}}, diffs(t, s.dir, s.added()[0]))
}

func TestADiffTheAgentsEditToolShowedIsNotRepeated(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
	s.agent(started("c1", "make"))
	path := filepath.Join(s.dir, "a")
	s.agent(update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"e1","kind":"edit","status":"completed","content":[{"type":"diff","path":%q,"oldText":"a\n","newText":"edited\n"}]}`, path)))
	s.run("echo edited > a && echo built > out")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Equal(t, map[string][2]any{"out": {nil, "built\n"}}, diffs(t, s.dir, s.added()[0]))
}

func TestSedShownByShellToPatchIsShownOnce(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"f.txt": "old\n"}, git: true}, &Filter{}, &shellpatch.Filter{})
	script := "sed -i s/old/new/ f.txt"
	argv, _ := json.Marshal([]string{"/bin/bash", "-lc", script})
	s.agent(update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":%q,"kind":"execute","status":"in_progress","rawInput":{"command":%s,"cwd":%q}}`, script, argv, s.dir)))
	require.Contains(t, s.sent[len(s.sent)-1].Raw, `"type":"diff"`, "shell-to-patch shows the edit before it runs")
	s.run(script)
	s.agent(ended("c1", "completed", ""))
	s.settle()
	assert.Empty(t, s.added(), "the edit shell-to-patch showed and verified is not shown again")
}

func TestCapsAndFilesWithoutADiffAreSaid(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Limits: Limits{MaxFileBytes: 1 << 20, MaxCopyBytes: 1 << 20, MaxFiles: 100, MaxShown: 2}})
	s.agent(started("c1", "gen"))
	s.run("printf 'a\\0b' > bin && for i in 1 2 3; do echo $i > f$i; done && head -c 2000000 /dev/zero > big")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	note := content(t, s.added()[0])[1]["content"].(map[string]any)["text"].(string)
	assert.Equal(t, "acp-proxy: 5 files under "+s.dir+" changed since the prompt was sent:\n"+
		"- created big: no diff, larger than 1 MiB (2000000 bytes)\n"+
		"- created bin: no diff, a binary file\n"+
		"- and 3 more files, not listed (one update shows at most 2)", note)
}

func TestAnUnreadableFileIsSaid(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file whatever its mode")
	}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}}, &Filter{})
	s.agent(started("c1", "x"))
	s.run("echo secret > locked && chmod 000 locked")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], "- created locked: no diff, cannot be read (permission denied)")
}

func TestASymlinkOutIsNeverFollowed(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "target"), []byte("outside secret\n"), 0o644))
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git,
			setup: "ln -s " + outside + " dirlink && ln -s " + outside + "/target filelink"}, &Filter{})
		s.agent(started("c1", "x"))
		s.run("echo 'changed outside' > dirlink/target && echo more >> filelink")
		s.agent(ended("c1", "completed", ""))
		s.settle()
		assert.Empty(t, s.added(), "git %v: a write through a link lands outside the directory: nothing under it changed", git)
		for _, l := range s.sent {
			assert.NotContains(t, l.Raw, "outside secret")
		}
	}
}

func TestTheEndOfATurnWaitsForTheUpdatesOfItsCommands(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
	s.agent(started("c1", "cp a b"))
	s.run("cp a b")
	s.agent(ended("c1", "completed", ""), `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
		update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"after"}}`))
	s.settle()
	var order []string
	for _, l := range s.sent {
		switch {
		case strings.Contains(l.Raw, " changed since "):
			order = append(order, "update")
		case strings.Contains(l.Raw, `"stopReason"`):
			order = append(order, "end of turn")
		case strings.Contains(l.Raw, `"after"`):
			order = append(order, "next message")
		}
	}
	assert.Equal(t, []string{"update", "end of turn", "next message"}, order)
}

// The agent's edit tool, between commands, shows a snippet of the file
// (claude's Edit: old_string → new_string): the next command compares with
// the directory after it, so the edit is not shown again.
func TestAnEditBeforeACommandIsNotItsChange(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "one\ntwo\n"}, git: true}, &Filter{})
	path := filepath.Join(s.dir, "a")
	s.agent(update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"e1","kind":"edit","status":"pending","content":[{"type":"diff","path":%q,"oldText":"two","newText":"TWO"}]}`, path)))
	s.run("sed -i s/two/TWO/ a")
	s.agent(update(`{"sessionUpdate":"tool_call_update","toolCallId":"e1","status":"completed"}`))
	s.rested()
	s.agent(started("c1", "make"))
	s.run("echo built > out")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Equal(t, map[string][2]any{"out": {nil, "built\n"}}, diffs(t, s.dir, s.added()[0]))
	assert.Contains(t, s.added()[0], "changed since the agent's previous edit ended")
}

// A command that starts while the rest after the one before is still being
// taken compares with the rest before it (the new one may already hold its
// first writes); what the update before showed is not shown again.
func TestACommandStartingBeforeTheRestIsTakenComparesWithTheOneBefore(t *testing.T) {
	gate := make(chan struct{})
	slow := func(ctx context.Context, root string, lim Limits) Snapshot {
		<-gate
		return Take(ctx, root, lim)
	}
	f := &Filter{}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
	f.Take = slow // the rests after the prompt's
	s.agent(started("c1", "python"))
	s.run("echo py > py.txt")
	s.agent(ended("c1", "completed", ""))
	s.drain() // c1's report is made (from the prompt's rest); the rest after it is not taken yet
	s.agent(started("c2", "cp a b"))
	s.run("cp a b")
	s.agent(ended("c2", "completed", ""))
	close(gate)
	s.settle()
	require.Len(t, s.added(), 2)
	assert.Equal(t, map[string][2]any{"py.txt": {nil, "py\n"}}, diffs(t, s.dir, s.added()[0]))
	assert.Equal(t, map[string][2]any{"b": {nil, "a\n"}}, diffs(t, s.dir, s.added()[1]), "py.txt, shown once, is not shown again")
	assert.Contains(t, s.added()[1], "changed since the prompt was sent")
}

// gated is a snapshot whose report waits for a gate.
type gated struct {
	Snapshot
	gate chan struct{}
}

func (g gated) Changes(ctx context.Context) Report { <-g.gate; return g.Snapshot.Changes(ctx) }

// A report made after the next command started may hold that command's
// first writes: its update says so, naming the command.
func TestAReportMadeAfterTheNextCommandStartedSaysSo(t *testing.T) {
	gate := make(chan struct{})
	f := &Filter{Take: func(ctx context.Context, root string, lim Limits) Snapshot { return gated{Take(ctx, root, lim), gate} }}
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, f)
	s.agent(started("c1", "python"))
	s.run("echo py > py.txt")
	s.agent(ended("c1", "completed", ""), started("c2", "cp a b"))
	s.run("cp a b")
	close(gate)
	s.agent(ended("c2", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1, "c2's change was shown on c1's update, once")
	assert.Equal(t, map[string][2]any{"py.txt": {nil, "py\n"}, "b": {nil, "a\n"}}, diffs(t, s.dir, s.added()[0]))
	assert.Contains(t, s.added()[0], `calls that started before the proxy looked, so a change may be theirs: \"cp a b\" (c2)`)
}

// A session/load replays the session's history: its commands ran before,
// and nothing is added to them.
func TestCallsALoadReplaysAreLeftAlone(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
	chaintest.Run(t, s.chain, acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"S","cwd":%q,"mcpServers":[]}}`, s.dir))
	s.run("echo new > new.txt")
	s.agent(started("old", "cp a new.txt"), ended("old", "completed", "history"), `{"jsonrpc":"2.0","id":7,"result":{}}`)
	s.settle()
	assert.Empty(t, s.added())
}

// An agent's content may be any JSON array, spaces and all: the update's
// items follow its items in a valid array, whatever space was between them.
func TestTheAgentsContentIsKeptWhateverItsSpacing(t *testing.T) {
	for name, agentContent := range map[string]string{
		"empty with a space":   `[ ]`,
		"spaces between items": `[ {"type":"content","content":{"type":"text","text":"out"}} , {"type":"content","content":{"type":"text","text":"more"}} ]`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
			s.agent(started("c1", "cp a b"))
			s.run("cp a b")
			s.agent(update(`{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed","content":` + agentContent + `}`))
			s.settle()
			require.Len(t, s.added(), 1, "the update is valid JSON, so it reaches the client")
			items := content(t, s.added()[0])
			var agents []any
			require.NoError(t, json.Unmarshal([]byte(agentContent), &agents))
			assert.Equal(t, agents, []any(toAny(items[:len(agents)])), "the agent's items come first, as they were")
			assert.Equal(t, map[string][2]any{"b": {nil, "a\n"}}, diffs(t, s.dir, s.added()[0]))
		})
	}
}

func toAny(items []map[string]any) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

// A session whose directory is a symbolic link, in git and outside it, is
// shown what its commands changed, under the directory's name as the
// session gave it.
func TestASessionInASymlinkedDirectoryIsShownItsChanges(t *testing.T) {
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git, linked: true}, &Filter{})
		s.agent(started("c1", "cp a b"))
		s.run("cp a b")
		s.agent(ended("c1", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 1, "git %v", git)
		assert.Equal(t, map[string][2]any{"b": {nil, "a\n"}}, diffs(t, s.dir, s.added()[0]))
	}
}

// With --shell-to-patch, a heredoc the agent ran before the proxy read
// its call (codex-acp 2.6's default mode; codex's shape here) is not shown as an empty diff:
// shell-to-patch cannot know the file's text before and shows none, and
// show-changes shows the file created.
func TestAWriteShellToPatchCouldNotShowIsShownByShowChanges(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{}, &shellpatch.Filter{})
	script := "cat > hello.py <<'EOF'\nprint(\"hi\")\nEOF"
	s.run(script) // it ran as the agent announced it
	now := time.Now()
	argv, _ := json.Marshal([]string{"/bin/bash", "-lc", script})
	s.agentAt(now, update(fmt.Sprintf(`{"sessionUpdate":"tool_call","toolCallId":"c1","title":%q,"kind":"execute","status":"in_progress","rawInput":{"command":%s,"cwd":%q}}`, script, argv, s.dir)))
	assert.NotContains(t, s.sent[len(s.sent)-1].Raw, `"type":"diff"`, "no diff whose text before is not known")
	s.agentAt(now, ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], "- created hello.py")
	assert.Equal(t, map[string][2]any{"hello.py": {nil, "print(\"hi\")\n"}}, diffs(t, s.dir, s.added()[0]))
}
