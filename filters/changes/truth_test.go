package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
)

// Two calls from one model response compare with the same before-state: a
// change the first one's update showed, a deletion or a file too large to
// diff included, is not shown again on the second's.
func TestNothingIsShownOnTwoCalls(t *testing.T) {
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"x.txt": "x\n", "a": "a\n"}, git: git}, &Filter{})
		s.agent(started("A", "rm x.txt; echo M > m.txt"), started("B", "echo b > b.txt"))
		s.run("rm x.txt && echo M > m.txt && head -c 2000000 /dev/zero > big")
		s.agent(ended("A", "completed", ""))
		s.settle()
		s.run("echo b > b.txt")
		s.agent(ended("B", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 2, "git %v", git)
		for _, want := range []string{"- deleted x.txt", "- created m.txt", "- created big"} {
			assert.Contains(t, s.added()[0], want, "git %v", git)
		}
		second := s.added()[1]
		assert.Contains(t, second, "- created b.txt")
		for _, shown := range []string{"x.txt", "m.txt", "big"} {
			assert.False(t, strings.Contains(second, "- deleted "+shown) || strings.Contains(second, "- created "+shown),
				"git %v: %s, shown on A's update, is shown again on B's: %s", git, shown, second)
		}
	}
}

// Repositories of their own below the session's directory — a submodule,
// a repository git sees as an untracked folder — are looked into: what a
// command changed there is shown; one it made is named.
func TestNestedRepositoriesAreLookedInto(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true,
		afterGit: "mkdir nested && (cd nested && git init -q && echo n > n.txt && git add n.txt && git -c user.email=t@t -c user.name=t commit -qm n)",
		setup: `mkdir libsrc && (cd libsrc && git init -q && echo l > lib.c && git add . && git -c user.email=t@t -c user.name=t commit -qm l)
		git init -q && git -c protocol.file.allow=always submodule add -q ./libsrc vendor/lib`}, &Filter{})
	s.agent(started("c1", "edit"))
	s.run("echo more >> nested/n.txt && echo more >> vendor/lib/lib.c && git init -q made && echo m > made/m.txt")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Equal(t, map[string][2]any{
		"nested/n.txt":     {"n\n", "n\nmore\n"},
		"vendor/lib/lib.c": {"l\n", "l\nmore\n"},
	}, diffs(t, s.dir, s.added()[0]))
	assert.Contains(t, s.added()[0], "- created made: no diff, a repository of its own, made since: its files are not looked at")
}

// What git would ignore stays private outside git as in it, the user's
// own excludes file (core.excludesFile) included, with no .gitignore in
// the directory; and a client's own files in the project (agent-shell's
// transcripts) are never shown.
func TestWhatGitIgnoresAndAClientsOwnFilesAreNeverShown(t *testing.T) {
	excludes := filepath.Join(t.TempDir(), "ignore")
	require.NoError(t, os.WriteFile(excludes, []byte("*.secret\n"), 0o644))
	config := filepath.Join(t.TempDir(), "gitconfig")
	require.NoError(t, os.WriteFile(config, []byte("[core]\n\texcludesFile = "+excludes+"\n"), 0o644))
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git}, &Filter{})
		s.agent(started("c1", "x"))
		s.run("echo TOKEN=1 > x.secret && mkdir -p .agent-shell/transcripts && echo said > .agent-shell/transcripts/t.md && echo b > b")
		s.agent(ended("c1", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 1, "git %v", git)
		assert.Equal(t, map[string][2]any{"b": {nil, "b\n"}}, diffs(t, s.dir, s.added()[0]), "git %v", git)
		assert.NotContains(t, s.added()[0], "TOKEN")
	}
}

// Files git tracks are shown wherever they lie: the dependency and build
// folders are left out only for files git does not track.
func TestTrackedFilesInBuildFoldersAreShown(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"internal/build/build.go": "package build\n", "dist/index.js": "old\n"}, git: true}, &Filter{})
	s.agent(started("c1", "x"))
	s.run("sed -i s/build/built/ internal/build/build.go && echo new > dist/index.js && mkdir -p node_modules/p && echo j > node_modules/p/i.js && echo o > dist/other.js")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Equal(t, map[string][2]any{
		"internal/build/build.go": {"package build\n", "package built\n"},
		"dist/index.js":           {"old\n", "new\n"},
	}, diffs(t, s.dir, s.added()[0]), "tracked files shown; untracked ones in dist/ and node_modules/ not")
}

// A file git converts on checkout (eol=crlf here) is shown with the text
// the work tree held before, not the blob's; one a filter driver makes is
// said, the driver not run.
func TestTheTextBeforeIsWhatTheWorkTreeHeld(t *testing.T) {
	dir := tree{files: map[string]string{".gitattributes": "*.txt text eol=crlf\n*.dat filter=upper\n", "a.txt": "a\nb\n", "f.dat": "low\n"}, git: true,
		setup:    "git init -q && git config filter.upper.smudge 'tr a-z A-Z' && git config filter.upper.clean 'tr A-Z a-z'",
		afterGit: "rm a.txt f.dat && git checkout -- a.txt f.dat"}.make(t)
	snap := Take(bg, dir, testLimits)
	defer snap.Close()
	sh(t, dir, `printf 'a\r\nB\r\n' > a.txt && echo NEW > f.dat`)
	r := snap.Changes(bg)
	want := []seen{{op: Modified, path: "a.txt", old: "a\r\nb\r\n", new: "a\r\nB\r\n"},
		noDiff(Modified, "f.dat", `its text before the command is what git's filter "upper" makes of the index's copy; the proxy runs no filter program`)}
	if got := summarise(dir, r); !matches(got, want) || r.Note != "" {
		t.Errorf("got %q (note %q), want %q", got, r.Note, want)
	}
}

// A mode change (chmod +x) is shown as git says it, alone or beside the
// file's diff.
func TestModeChangesAreShown(t *testing.T) {
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"run.sh": "echo hi\n", "b.sh": "echo b\n"}, git: git}, &Filter{})
		s.agent(started("c1", "chmod +x run.sh b.sh"))
		s.run("chmod +x run.sh b.sh && echo more >> b.sh")
		s.agent(ended("c1", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 1, "git %v", git)
		assert.Contains(t, s.added()[0], `- modified run.sh (mode 100644 → 100755)`, "git %v", git)
		assert.Contains(t, s.added()[0], `- modified b.sh (mode 100644 → 100755)`, "git %v", git)
		assert.Equal(t, map[string][2]any{"b.sh": {"echo b\n", "echo b\nmore\n"}}, diffs(t, s.dir, s.added()[0]), "git %v", git)
	}
}

// Files git is told not to look at (assume-unchanged, skip-worktree) are
// named when a command changed them: git status never lists them.
func TestFilesGitIsToldNotToLookAtAreNamed(t *testing.T) {
	s := newSession(t, tree{files: map[string]string{"au.txt": "a\n", "sw.txt": "s\n"}, git: true,
		afterGit: "git update-index --assume-unchanged au.txt && git update-index --skip-worktree sw.txt"}, &Filter{})
	s.agent(started("c1", "x"))
	s.run("echo more >> au.txt && echo more >> sw.txt")
	s.agent(ended("c1", "completed", ""))
	s.settle()
	require.Len(t, s.added(), 1)
	for _, name := range []string{"au.txt", "sw.txt"} {
		assert.Contains(t, s.added()[0], "- modified "+name+": no diff, "+whyFlagged)
	}
}

// A command whose output is too large to send again (an update's content
// replaces the call's) has its changes on the update that ends it, its
// output sent once; when the report is late, on a call of their own, named
// after it.
func TestAChangeOfACallWithALargeOutputReachesTheClient(t *testing.T) {
	big := strings.Repeat("x", maxContentBytes+1)
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{})
	s.agent(started("c1", "big"))
	s.run("echo a > a.txt")
	s.agent(ended("c1", "completed", big))
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], `"toolCallId":"c1","status":"completed"`)
	assert.Equal(t, map[string][2]any{"a.txt": {nil, "a\n"}}, diffs(t, s.dir, s.added()[0]))
	assert.Equal(t, 1, len(s.sentWith("xxxx")), "the output is sent once")

	gate := make(chan struct{})
	s = newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: gatedTake(gate)})
	s.agent(started("c1", "big"))
	s.run("echo a > a.txt")
	s.agent(ended("c1", "completed", big))
	s.tick(time.Unix(0, 0).Add(maxCallHold))
	close(gate)
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], `"sessionUpdate":"tool_call","toolCallId":"c1-acp-proxy-changes","title":"Files changed by big","kind":"edit","status":"completed"`)
	assert.Equal(t, map[string][2]any{"a.txt": {nil, "a\n"}}, diffs(t, s.dir, s.added()[0]))
	assert.Equal(t, 1, len(s.sentWith("xxxx")), "the output is sent once")
}

// sentWith are the lines the client got that hold text.
func (s *session) sentWith(text string) []string {
	var out []string
	for _, l := range s.sent {
		if strings.Contains(l.Raw, text) {
			out = append(out, l.Raw)
		}
	}
	return out
}

// writeEach has the agent run, one after the other, a command per id that
// writes the file named id, each settled before the next.
func (s *session) writeEach(ids ...string) {
	s.t.Helper()
	for _, id := range ids {
		s.agent(started(id, "echo x > "+id))
		s.run("echo x > " + id)
		s.agent(ended(id, "completed", ""))
		s.settle()
	}
}

// agentAt sends lines from the agent read at at, keeping what reaches the
// client.
func (s *session) agentAt(at time.Time, lines ...string) {
	s.t.Helper()
	clock := filters.NewManualClock(at)
	sink := func(l filters.Line) error {
		s.sent = append(s.sent, chaintest.Sent{Dir: l.Dir, Raw: string(l.Raw), Original: l.Original})
		return nil
	}
	dr := filters.NewDriver(s.chain, clock, sink)
	for _, l := range lines {
		require.NoError(s.t, dr.Process(filters.NewMessage(acp.AgentToClient, []byte(l), at, nil), sink))
		require.NoError(s.t, dr.Tick(acp.AgentToClient))
	}
}

// A change whose file's time is before the command was announced (a
// user's save between commands, a background writer of an earlier call)
// is said as made before it started, not as the command's; one after the
// command ended, as made after it. A deletion is placed by its folder's
// time.
func TestAChangeMadeBeforeACommandStartedIsNotSaidAsItsOwn(t *testing.T) {
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"a": "a\n", "old.txt": "o\n", "gone/g.txt": "g\n"}, git: git}, &Filter{})
		now := time.Now()
		s.agentAt(now, started("A", "echo A > A.txt"))
		s.run("echo A > A.txt")
		s.agentAt(now, ended("A", "completed", ""))
		s.settle()
		s.run("echo n > notes.md && rm old.txt && mkdir -p gone && rm gone/g.txt") // the user, or a writer A left behind
		later := time.Now().Add(time.Second)
		s.agentAt(later, started("B", "ls; echo B > B.txt"))
		s.agentAt(later, ended("B", "completed", ""))
		s.drain()
		require.Len(t, s.added(), 2, "git %v", git)
		second := s.added()[1]
		for _, before := range []string{"created notes.md", "deleted old.txt", "deleted gone/g.txt"} {
			assert.Contains(t, second, "- "+before+" (changed before this command started, by you or another program)", "git %v", git)
		}
	}
}

// A change made after the command ended (as its update came), before the
// report looked, is said as such.
func TestAChangeMadeAfterACommandEndedIsSaidSo(t *testing.T) {
	gate := make(chan struct{})
	s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: true}, &Filter{Take: gatedTake(gate)})
	earlier := time.Now().Add(-2 * time.Second)
	s.agentAt(earlier, started("A", "x"))
	s.agentAt(earlier.Add(time.Second), ended("A", "completed", ""))
	s.run("echo x > x.txt") // before the report looks
	close(gate)
	s.settle()
	require.Len(t, s.added(), 1)
	assert.Contains(t, s.added()[0], "- created x.txt (changed after this command ended: by you, another program, or one it left running)")
}

// A before-state still being taken when a command starts does not absorb
// the command's writes: a file written while it was taken (its time past
// the take's start; here, set so) is named, its text before not known,
// rather than taken for the state before.
func TestAWriteWhileTheStateBeforeIsTakenIsNotAbsorbed(t *testing.T) {
	future := `touch -d "$(date -d '+2 sec' '+%Y-%m-%d %H:%M:%S')" w.txt`
	for _, git := range []bool{true, false} {
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git, afterGit: "echo w > w.txt && " + future}, &Filter{})
		s.agent(started("c1", "echo w > w.txt"))
		s.agent(ended("c1", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 1, "git %v", git)
		assert.Contains(t, s.added()[0], "- written w.txt: no diff, "+whyDuring, "git %v", git)
	}
}

// A before-state stands for the moment it was asked for (the prompt sent,
// the last command ended), however long it waits for its turn: a write
// after that moment, before the scan began, is named on the next command,
// not absorbed.
func TestAWriteBeforeTheStateBeforeIsTakenIsNotAbsorbed(t *testing.T) {
	for _, git := range []bool{true, false} {
		f := &Filter{}
		s := newSession(t, tree{files: map[string]string{"a": "a\n"}, git: git}, f)
		gate := make(chan struct{})
		f.Take = func(ctx context.Context, root string, lim Limits) Snapshot { <-gate; return Take(ctx, root, lim) }
		chaintestPrompt(s) // the next prompt's state before waits for the gate
		s.run("echo u > u.txt")
		close(gate)
		s.rested()
		s.agent(started("c1", "true"), ended("c1", "completed", ""))
		s.settle()
		require.Len(t, s.added(), 1, "git %v", git)
		assert.Contains(t, s.added()[0], "- written u.txt: no diff, "+whyDuring, "git %v", git)
	}
}

// Your home folder, or the root, as the session's directory: the flag
// stands aside, says so on the first command's update, once, and scans
// nothing.
func TestTheHomeFolderIsRefusedWithANoteOnce(t *testing.T) {
	dir := tree{files: map[string]string{"a": "a\n"}}.make(t)
	t.Setenv("HOME", dir)
	s := newSessionIn(t, dir, &Filter{})
	s.writeEach("c1", "c2")
	notes := s.sentWith("stands aside")
	require.Len(t, notes, 1, "said once")
	assert.Contains(t, notes[0], `"toolCallId":"c1"`)
	assert.Contains(t, notes[0], "the session's directory is your home folder ("+dir+"), not a project: --show-changes stands aside for this session")
	assert.NotContains(t, notes[0], "created c1", "nothing scanned")
	assert.NotContains(t, notes[0], "changed since", "no count of files it did not look at")
	assert.Equal(t, "", refused("/work/project"))
	assert.Contains(t, refused("/"), "the whole filesystem")
}

// A tree outside git with more files than a scan holds (Limits.MaxFiles)
// is too big to watch: the flag stands aside for the session, says so on
// the first command's update, once, and never scans it again.
func TestATreeTooBigToWatchIsSaidOnceAndNotScannedAgain(t *testing.T) {
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("d/f%d.txt", i)] = "x\n"
	}
	var takes atomic.Int32
	lim := testLimits
	lim.MaxFiles = 4
	f := &Filter{Limits: lim, Take: func(ctx context.Context, root string, lim Limits) Snapshot {
		takes.Add(1)
		return Take(ctx, root, lim)
	}}
	s := newSession(t, tree{files: files}, f)
	s.writeEach("c1", "c2", "c3")
	notes := s.sentWith("stands aside")
	require.Len(t, notes, 1, "said once")
	assert.Contains(t, notes[0], `"toolCallId":"c1"`)
	assert.Contains(t, notes[0], "("+s.dir+") holds more than 4 files (or 8 MiB of their names) outside git, too many to watch: --show-changes stands aside for this session")
	assert.NotContains(t, notes[0], "created c1", "nothing shown")
	assert.Equal(t, int32(1), takes.Load(), "the tree is walked once, at the prompt")

	lim.MaxFiles = 5
	_, isAside := Take(bg, s.dir, lim).(aside)
	assert.True(t, isAside, "8 files (5 and the 3 commands'): past the bound")
	lim.MaxFiles = 8
	_, isAside = Take(bg, s.dir, lim).(aside)
	assert.False(t, isAside, "8 files: within the bound")
}
