package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/acpclient"
)

// outputView follows, line by line, what a client shows of each tool call's
// command output, the way Zed does: content replaces content, a terminal
// item shows the data the terminal-output extension appended to its
// terminal, and a text item shows its text. It also keeps what the agent
// reported (streamed data, snapshots, rawOutput), for judging completeness
// against the agent rather than the command. It is fed from
// acpclient.Options.OnLine, or from a trace.
type outputView struct {
	mu    sync.Mutex
	calls map[string]*viewCall
	order []string
	// extension is set when a line carries the extension's keys or a
	// terminal item (a client without it must never see one).
	extension []string
}

// viewCall is one tool call as the client shows it.
type viewCall struct {
	content    json.RawMessage          // the latest content array
	terminals  map[string]*bytes.Buffer // terminal id → data appended
	streamed   bytes.Buffer             // all terminal data, in order
	rawOutput  string                   // the output the end reported
	updates    int                      // tool updates
	outputs    int                      // updates that showed output, before the end
	firstOut   time.Time                // when output was first shown
	lastOut    time.Time                // when output was last shown before the end
	end        time.Time                // when the call ended
	status     string                   // the final status
	shownSizes []int                    // its size at each of those updates
}

func newOutputView() *outputView { return &outputView{calls: map[string]*viewCall{}} }

// line takes one line the client (or agent) sent, received at at.
func (v *outputView) line(raw []byte, at time.Time) {
	if !bytes.Contains(raw, []byte(`"toolCallId"`)) {
		return
	}
	var msg acpclient.ToolLine
	if json.Unmarshal(raw, &msg) != nil || msg.Method != "session/update" {
		return
	}
	u := msg.Params.Update
	if u.SessionUpdate != "tool_call" && u.SessionUpdate != "tool_call_update" {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.calls[u.ToolCallID]
	if c == nil {
		c = &viewCall{terminals: map[string]*bytes.Buffer{}}
		v.calls[u.ToolCallID] = c
		v.order = append(v.order, u.ToolCallID)
	}
	c.updates++
	showed := false
	if u.Content != nil {
		// Decoded only when needed: a direct codex 0.13 run sends ~1 GB of
		// snapshots.
		c.content = append(c.content[:0], u.Content...)
		if bytes.Contains(u.Content, []byte(`"type":"terminal"`)) {
			v.extension = append(v.extension, "terminal content item")
		}
		showed = bytes.Contains(u.Content, []byte(`"type":"content"`)) && !bytes.Contains(u.Content, []byte(`"text":""`))
	}
	for _, k := range []string{"terminal_info", "terminal_output", "terminal_output_delta", "terminal_exit"} {
		if _, ok := u.Meta[k]; ok {
			v.extension = append(v.extension, k)
		}
	}
	for _, k := range []string{"terminal_output", "terminal_output_delta"} {
		var d struct {
			TerminalID string `json:"terminal_id"`
			Data       string `json:"data"`
		}
		if json.Unmarshal(u.Meta[k], &d) == nil && u.Meta[k] != nil {
			b := c.terminals[d.TerminalID]
			if b == nil {
				b = &bytes.Buffer{}
				c.terminals[d.TerminalID] = b
			}
			b.WriteString(d.Data)
			c.streamed.WriteString(d.Data)
			showed = showed || d.Data != ""
		}
	}
	final := u.Status == "completed" || u.Status == "failed"
	if showed {
		if !final {
			c.outputs++
			if c.firstOut.IsZero() {
				c.firstOut = at
			}
			c.lastOut = at
		}
		c.shownSizes = append(c.shownSizes, len(c.content)+c.streamed.Len())
	}
	if final {
		c.end, c.status = at, u.Status
		c.rawOutput = acpclient.RawOutputText(u.RawOutput)
	}
}

type contentItem struct {
	Type       string `json:"type"`
	TerminalID string `json:"terminalId"`
	Content    struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func contentItems(raw json.RawMessage) []contentItem {
	var items []contentItem
	_ = json.Unmarshal(raw, &items)
	return items
}

// shownLocked is what the client shows of the call's output now.
func (c *viewCall) shownLocked() string {
	var b strings.Builder
	for _, it := range contentItems(c.content) {
		switch it.Type {
		case "terminal":
			if t := c.terminals[it.TerminalID]; t != nil {
				b.Write(t.Bytes())
			}
		case "content":
			b.WriteString(acpclient.Unfence(it.Content.Text))
		}
	}
	return b.String()
}

// only returns the single tool call, failing the test otherwise.
func (v *outputView) only(t *testing.T) *viewCall {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	require.Len(t, v.order, 1, "%d tool calls, want 1", len(v.order))
	return v.calls[v.order[0]]
}

// shown is what the client ends up showing of the call's output.
func (v *outputView) shown(c *viewCall) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return c.shownLocked()
}

// agentView reads a --record trace: what the agent itself sent, at the
// times the proxy read it.
func agentView(t *testing.T, trace string) *outputView {
	t.Helper()
	v := newOutputView()
	var t0 time.Time
	for _, r := range readTraceFile(t, trace) {
		if r.Dir == acp.AgentToClient && r.HasLine {
			v.line(r.Line, t0.Add(r.T))
		}
	}
	return v
}

// numberedLine is one output line. qwen-code shows the output inside its
// report to the model, the first line after "Output: " (docs/agents.md).
var numberedLine = regexp.MustCompile(`^(?:Output: )?line (\d+)$`)

// numbered returns the N of every "line N" line of s, in order.
func numbered(s string) []int {
	var out []int
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if m := numberedLine.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
	}
	return out
}

// agentLines is the reference a client is judged by: every line the agent
// reported for the call, in its stream, its snapshots or its rawOutput.
func agentLines(c *viewCall) map[int]bool {
	ref := map[int]bool{}
	snapshot := ""
	if items := contentItems(c.content); len(items) == 1 && items[0].Type == "content" {
		snapshot = acpclient.Unfence(items[0].Content.Text)
	}
	for _, s := range []string{c.streamed.String(), snapshot, c.rawOutput} {
		for _, n := range numbered(s) {
			ref[n] = true
		}
	}
	return ref
}

// checkLines checks that shown has every line of ref, in order, once.
func checkLines(t *testing.T, what, shown string, ref map[int]bool) {
	t.Helper()
	got := numbered(shown)
	seen := map[int]bool{}
	last := -1 // "line 0" may come first
	for i, n := range got {
		if !assert.Greater(t, n, last, "%s: line %d (%d of %d shown) after line %d: out of order or twice", what, n, i+1, len(got), last) {
			return
		}
		last = n
		seen[n] = true
	}
	missing := 0
	first := -1
	for n := range ref {
		if !seen[n] {
			missing++
			if first < 0 || n < first {
				first = n
			}
		}
	}
	assert.Zero(t, missing, "%s: %d of the %d lines the agent sent are not shown (the first: line %d); %d shown", what, missing, len(ref), first, len(got))
}

// procSample is a process's CPU time and peak RSS, from /proc. A child's
// rusage from wait4 (os.ProcessState) would add the usage of the children
// it reaped, and the proxy reaps the agent.
type procSample struct {
	cpu     time.Duration
	peakRSS int64 // bytes
}

// sampleProc reads /proc/<pid>: utime+stime of stat, and VmHWM of status.
func sampleProc(pid int) (procSample, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procSample{}, false
	}
	// Fields after the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procSample{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return procSample{}, false
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ
	s := procSample{cpu: time.Duration(utime+stime) * time.Second / ticks}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, true
	}
	for l := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			s.peakRSS = kb << 10
		}
	}
	return s, true
}

// procWatch samples a process until stopped, keeping the last sample.
type procWatch struct {
	mu   sync.Mutex
	last procSample
	stop chan struct{}
	done chan struct{}
}

func watchProc(pid int) *procWatch {
	w := &procWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if s, ok := sampleProc(pid); ok {
				w.mu.Lock()
				w.last = s
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// end stops sampling (after a last sample) and returns the last one.
func (w *procWatch) end() procSample {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// onLine returns an OnLine hook feeding v.
func (v *outputView) onLine() func(acpclient.Line) {
	return func(l acpclient.Line) {
		if l.Update != nil && l.Update.ToolCallID != "" {
			v.line(l.Raw, l.At)
		}
	}
}
