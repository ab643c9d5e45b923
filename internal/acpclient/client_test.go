package acpclient_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

func TestRunRecordsTurn(t *testing.T) {
	argv, env := fakeAgentArgv(t, "turn")
	c := acpclient.Run(t, acpclient.Options{Argv: argv, Env: env, Dir: t.TempDir(), Capabilities: acpclient.ZedLikeCapabilities}, "go")

	var init struct {
		Meta struct {
			Echo json.RawMessage `json:"echo"`
		} `json:"_meta"`
	}
	if assert.NoError(t, json.Unmarshal(c.InitializeResult(), &init)) {
		assert.Equal(t, acpclient.ZedLikeCapabilities, string(init.Meta.Echo), "the clientCapabilities the agent saw")
	}

	lines := c.Lines()
	// initialize, session/new, tool_call, permission, fs, final update, prompt result
	require.Len(t, lines, 7, "got %d lines, want 7\n%s", len(lines), c.Report())
	var total int64
	largest := 0
	for i, l := range lines {
		assert.NoError(t, l.Err, "line %d", i)
		assert.Equal(t, len(l.Raw), l.Size, "line %d: size for its raw bytes", i)
		if i > 0 {
			assert.False(t, l.At.Before(lines[i-1].At), "line %d at %v, before the line before it", i, l.At)
		}
		total += int64(l.Size) + 1
		largest = max(largest, l.Size)
	}
	st := c.Stats()
	assert.Equal(t, total, st.Bytes, "stats %+v: bytes", st)
	assert.Equal(t, 7, st.Messages, "stats %+v: messages", st)
	assert.Equal(t, largest, st.LargestLine, "stats %+v: the largest line", st)
	assert.GreaterOrEqual(t, largest, 3<<20, "the largest line, over 3 MiB")
	if assert.NotNil(t, lines[2].Update, "line 2 update head") {
		if assert.Equal(t, "tool_call", lines[2].Update.SessionUpdate, "line 2 update head = %+v, want tool_call t1", lines[2].Update) {
			assert.Equal(t, "t1", lines[2].Update.ToolCallID, "line 2 update head = %+v, want tool_call t1", lines[2].Update)
		}
	}
	if assert.Equal(t, "session/request_permission", lines[3].Method, "line 3 = %s %s, want the permission request with id 0", lines[3].Method, lines[3].ID) {
		assert.Equal(t, "0", string(lines[3].ID), "line 3 = %s %s, want the permission request with id 0", lines[3].Method, lines[3].ID)
	}

	calls := c.ToolCalls()
	require.Len(t, calls, 1, "tool calls")
	require.Equal(t, "t1", calls[0].ID, "tool calls = %+v, want t1 with 2 updates", calls)
	require.Equal(t, 2, calls[0].Count, "tool calls = %+v, want t1 with 2 updates", calls)
	require.Len(t, calls[0].Updates, 2, "tool calls = %+v, want t1 with 2 updates", calls)
	updates, err := calls[0].Decoded()
	require.NoError(t, err)
	if assert.Equal(t, "completed", updates[1].Status, "final update status %q with %d bytes of rawOutput", updates[1].Status, len(updates[1].RawOutput)) {
		assert.Len(t, updates[1].RawOutput, bigLine+2, "final update status %q with %d bytes of rawOutput", updates[1].Status, len(updates[1].RawOutput))
	}
	n := len(c.PermissionRequests())
	assert.Equal(t, 1, n, "got %d permission requests, want 1", n)
	p := c.Problems()
	assert.Empty(t, p, "problems: %q", p)
	// initialize, session/new, permission answer, fs answer, prompt.
	assert.Len(t, c.Sent(), 5, "lines sent")
}

func TestMaxRetainedBytesKeepsMetadataAndLastUpdate(t *testing.T) {
	argv, env := fakeAgentArgv(t, "turn")
	var seen []int
	c := acpclient.Run(t, acpclient.Options{
		Argv: argv, Env: env, Dir: t.TempDir(),
		MaxRetainedBytes: 1 << 20,
		OnLine:           func(l acpclient.Line) { seen = append(seen, len(l.Raw)) },
	}, "go")
	lines := c.Lines()
	big := lines[5]
	// Over budget: no body, but its metadata.
	assert.Nil(t, big.Raw, "the over-budget line's body")
	assert.GreaterOrEqual(t, big.Size, bigLine, "the over-budget line's size")
	if assert.NotNil(t, big.Update, "the over-budget line's update head") {
		assert.Equal(t, "t1", big.Update.ToolCallID, "the over-budget line's toolCallId")
	}
	assert.NotNil(t, lines[6].Raw, "small line after the big one lost its body")
	tc := c.ToolCall("t1")
	if assert.Equal(t, 2, tc.Count, "tool call: count %d, %d retained, last %d bytes; want 2, 1, the big one", tc.Count, len(tc.Updates), len(tc.Last)) {
		if assert.Len(t, tc.Updates, 1, "tool call: count %d, %d retained, last %d bytes; want 2, 1, the big one", tc.Count, len(tc.Updates), len(tc.Last)) {
			assert.GreaterOrEqual(t, len(tc.Last), bigLine, "tool call: count %d, %d retained, last %d bytes; want 2, 1, the big one", tc.Count, len(tc.Updates), len(tc.Last))
		}
	}
	// OnLine runs on the reader goroutine, before the line is recorded;
	// Run has returned, so the reader is past the last line.
	if assert.Len(t, seen, 7, "OnLine saw") {
		assert.GreaterOrEqual(t, seen[5], bigLine, "OnLine saw %v, want 7 lines with the full big one", seen)
	}
}

func TestWaitLine(t *testing.T) {
	argv, env := fakeAgentArgv(t, "turn")
	c := acpclient.Start(t, acpclient.Options{Argv: argv, Env: env, Dir: t.TempDir()})
	c.Initialize()
	sid := c.NewSession(t.TempDir())
	p := c.Send("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{}})
	l := c.WaitLine("the final update", func(l acpclient.Line) bool {
		return l.Update != nil && l.Size > bigLine
	})
	assert.Equal(t, "t1", l.Update.ToolCallID, "matched %+v", l.Update)
	r := p.Wait()
	assert.Nil(t, r.Error, "prompt: %v", r.Error)
	// Past lines match too.
	c.WaitLine("initialize response", func(l acpclient.Line) bool { return string(l.ID) == "1" })
}

// fatalRecorder is a testing.TB whose FailNow ends only the goroutine that
// called it, so a test can check what the client reports on failure
// (require reports with Errorf, then calls FailNow).
type fatalRecorder struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprintf(format, args...)
	f.mu.Unlock()
}

func (f *fatalRecorder) FailNow() { runtime.Goexit() }

func TestAgentExitFailsWithStderr(t *testing.T) {
	argv, env := fakeAgentArgv(t, "exit")
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		acpclient.Run(rec, acpclient.Options{Argv: argv, Env: env, Dir: t.TempDir(), Timeout: time.Minute}, "go")
	}()
	<-done
	for _, want := range []string{"stdout ended before the session/prompt response", "crashing on purpose", `"method":"session/prompt"`} {
		assert.Contains(t, rec.msg, want, "failure message lacks %q:\n%s", want, rec.msg)
	}
}

func TestCleanupEndsProcessGroup(t *testing.T) {
	var pid int
	t.Run("agent", func(t *testing.T) {
		// `sleep` ignores stdin EOF like codex-acp; only the signal ends it.
		c := acpclient.Start(t, acpclient.Options{Argv: []string{"sh", "-c", "sleep 60 & sleep 60"}, Dir: t.TempDir()})
		pid = c.PID()
	})
	live := liveGroupMembers(t, pid)
	assert.Empty(t, live, "process group %d still has live processes after cleanup: %v", pid, live)
}

// liveGroupMembers lists the processes of group pgid that are not zombies
// (an orphan may wait a moment for its reaper).
func liveGroupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	var live []string
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" {
			live = append(live, string(b[:bytes.LastIndexByte(b, ')')+1]))
		}
	}
	return live
}
