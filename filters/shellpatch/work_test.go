package shellpatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/shellwrite"
	"github.com/acp-proxy/acp-proxy/internal/testenv"
)

// bigFile writes a file of n bytes of text lines in dir.
func bigFile(t testing.TB, dir, name string, n int) {
	t.Helper()
	line := "a line of the big file\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat(line, n/len(line))), 0o644))
}

// repeat is n copies of statement, one a line.
func repeat(statement string, n int) string {
	return strings.TrimSuffix(strings.Repeat(statement+"\n", n), "\n")
}

// #25.4: reading one script is bounded per message, whatever it holds. Appends to a large file
// cost what they append (not statements × file size), so a long run of them is still shown; work
// past the bound (here: the bytes forty `sed -i` runs of a 1 MiB file hand to sed, in each of its
// environments) stands aside whole, and the message goes on unchanged.
func TestReadingAScriptIsBoundedPerMessage(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		size         int // of the file f
		shown        bool
	}{
		{"4,000 appends to a 1 MiB file", repeat("echo a >> f", 4000), 1 << 20, true},
		{"40 sed -i of a 1 MiB file", repeat("sed -i s/line/LINE/ f", 40), 1 << 20, false},
		{"one sed -i of a 64 KiB file", "sed -i s/line/LINE/ f", 64 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dir := shellPatchSession(t, &Filter{})
			bigFile(t, dir, "f", tc.size)
			got := chaintest.Run(t, c, acp.AgentToClient, codexCall("c1", tc.script, dir))
			require.Len(t, got, 1)
			if !tc.shown {
				assert.True(t, got[0].Original, "shown: %.300s", got[0].Raw)
				return
			}
			items := contentOf(t, got[0].Raw, "params", "update", "content")
			require.NotEmpty(t, items)
			assert.Equal(t, filepath.Join(dir, "f"), items[0].Path)
		})
	}
}

// The time bound: past it, a script stands aside whole (a part shown would depend on the
// machine's speed).
func TestEditsPastTheTimeBoundStandAside(t *testing.T) {
	dir := t.TempDir()
	bigFile(t, dir, "f", 1<<10)
	s, err := shellwrite.ParseScript("echo a >> f; sed -i s/a/b/ f", dir)
	require.NoError(t, err)
	files, cut := s.EditsWithin(dir, false, 1<<20, shellwrite.Work{Time: time.Nanosecond, Bytes: 1 << 30})
	assert.Empty(t, files)
	assert.ErrorIs(t, cut, shellwrite.ErrTooMuchWork)
	files, cut = s.EditsWithin(dir, false, 1<<20, shellwrite.Work{Time: time.Minute, Bytes: 1 << 30})
	assert.NoError(t, cut)
	assert.Len(t, files, 1)
}

// The sed bound: past its sed processes a script stands aside whole, however fast the machine
// ran them, so that what is shown is the same on every machine.
func TestEditsPastTheSedRunBoundStandAside(t *testing.T) {
	dir := t.TempDir()
	bigFile(t, dir, "f", 1<<10)
	unbounded := shellwrite.Work{Time: time.Hour, Bytes: 1 << 30}
	for _, tc := range []struct {
		script string
		work   shellwrite.Work
		shown  bool
	}{
		{"sed -i s/a/b/ f", unbounded, true},
		{"sed -i s/a/b/ f", shellwrite.Work{Time: time.Hour, Bytes: 1 << 30, SedRuns: 1}, false},
		{"sed -i s/a/b/ f", shellwrite.Work{Time: time.Hour, Bytes: 1 << 30, SedRuns: shellwrite.DefaultWork.SedRuns}, true},
		{strings.Repeat("sed -i s/a/b/ f; ", 20), unbounded, true},
		{strings.Repeat("sed -i s/a/b/ f; ", 20), shellwrite.Work{Time: time.Hour, Bytes: 1 << 30, SedRuns: shellwrite.DefaultWork.SedRuns}, false},
	} {
		s, err := shellwrite.ParseScript(tc.script, dir)
		require.NoError(t, err)
		files, cut := s.EditsWithin(dir, false, 1<<20, tc.work)
		if tc.shown {
			assert.NoError(t, cut, "%q within %+v", tc.script, tc.work)
			assert.Len(t, files, 1, "%q within %+v", tc.script, tc.work)
		} else {
			assert.ErrorIs(t, cut, shellwrite.ErrTooMuchWork, "%q within %+v", tc.script, tc.work)
			assert.Empty(t, files, "%q within %+v", tc.script, tc.work)
		}
	}
}

// countingDisk counts the scripts the filter reads.
type countingDisk struct{ scripts int }

func (d *countingDisk) Read(_ *filters.Message, q filters.DiskRead, read func() ([]byte, error)) ([]byte, error) {
	if q.Kind == "script-edits" || q.Kind == "write-target" {
		d.scripts++
	}
	return read()
}

// A call's rawInput is read once: the same rawInput in a later message of the call (codex's
// tool_call, then its permission request) has the same result, shown or not.
func TestTheSameRawInputIsReadOncePerCall(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		shown        bool
		locale       string // needed installed: without it the script is shown
	}{
		{"shown", "echo a >> f; echo b >> f", true, ""},
		// en_US's [[=e=]] also matches é, C.UTF-8's does not: the proxy cannot tell which the agent's sed uses.
		{"not shown", "sed -i 's/[[=e=]]/X/' f; echo a >> f", false, "en_US.UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.locale != "" {
				testenv.Locale(t, tc.locale)
			}
			c, dir := shellPatchSession(t, &Filter{})
			disk := &countingDisk{}
			c.Disk = disk
			require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("é\n"), 0o644))
			call := codexCall("c1", tc.script, dir)
			callRaw := field(t, call, "params", "update")
			perm := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"S","toolCall":%s,"options":[]}}`,
				strings.Replace(callRaw, `"sessionUpdate":"tool_call",`, "", 1))
			for _, msg := range []string{call, perm, perm} {
				got := chaintest.Run(t, c, acp.AgentToClient, msg)
				assert.Equal(t, !tc.shown, got[0].Original)
			}
			assert.Equal(t, 1, disk.scripts, "the script was read more than once")
		})
	}
}

// BenchmarkWorstScriptPerMessage is what one message costs the agent→client pump when its
// script is the worst for the reader (#25.4): 4,000 appends to a 2 MiB file, and 400 `sed -i` of
// it, against a one-line write in the same run. Each message is a new call (a call's rawInput is
// read once).
//
//	go test -run '^$' -bench WorstScriptPerMessage -benchtime 3x ./filters/shellpatch
func BenchmarkWorstScriptPerMessage(b *testing.B) {
	dir := b.TempDir()
	bigFile(b, dir, "f", 2<<20)
	caps := openedIn(dir)
	for _, bc := range []struct{ name, script string }{
		{"baseline=one-line-write", "echo hi > g"},
		{"4000-appends-2MiB", repeat("echo a >> f", 4000)},
		{"400-sed-2MiB", repeat("sed -i s/line/LINE/ f", 400)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := &Filter{}
			for i := range b.N {
				raw := []byte(codexCall(fmt.Sprintf("c%d", i), bc.script, dir))
				m := filters.NewMessage(acp.AgentToClient, raw, time.Time{}, caps)
				require.NoError(b, f.Apply(m, discardEmitter{}))
			}
		})
	}
}
