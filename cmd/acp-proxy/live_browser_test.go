package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/live"
	"github.com/acp-proxy/acp-proxy/internal/procgroup"
)

// A live page is tested in a browser that stays open while the session
// runs: Chromium driven over its DevTools protocol on a pipe
// (--remote-debugging-pipe: JSON messages ended by a NUL byte, read from
// its fd 3 and written to its fd 4), with nothing but the standard library.

// devtools is one Chromium driven over the pipe, attached to one page.
type devtools struct {
	t       testing.TB
	w       io.Writer
	r       *bufio.Reader
	id      int
	session string

	mu     sync.Mutex
	errors []string // console errors, exceptions, CSP violations
}

// openInBrowser starts Chromium on url and waits until the page has
// rendered.
func openInBrowser(t testing.TB, url string) *devtools {
	t.Helper()
	chromium := browser(t)
	dir := t.TempDir()
	toChrome, ours, err := os.Pipe()
	require.NoError(t, err)
	fromChrome, theirs, err := os.Pipe()
	require.NoError(t, err)
	profile := filepath.Join(dir, "profile")
	cmd := exec.Command(chromium, append(chromiumFlags(profile), "--window-size=1400,1000", "--remote-debugging-pipe", "about:blank")...)
	cmd.ExtraFiles = []*os.File{toChrome, theirs} // its fd 3 and fd 4
	procgroup.Set(cmd)
	require.NoError(t, cmd.Start())
	toChrome.Close()
	theirs.Close()
	t.Cleanup(func() {
		ours.Close()
		// Chromium's own children (renderer, GPU, crash handler) write
		// the profile too: stop them all, and remove the profile once the
		// last is gone, before t.TempDir's cleanup would find it busy.
		_ = procgroup.Signal(cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		fromChrome.Close()
		for range 100 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	d := &devtools{t: t, w: ours, r: bufio.NewReader(fromChrome)}

	var target struct{ TargetID string }
	d.call("Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	d.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	d.session = attached.SessionID
	d.call("Runtime.enable", nil, nil)
	d.call("Log.enable", nil, nil)
	d.call("Page.enable", nil, nil)
	d.call("Page.navigate", map[string]any{"url": url}, nil)
	d.wait(`document.documentElement.getAttribute("data-ready") === "1"`)
	return d
}

// call sends a DevTools command and decodes its result into result,
// noting the errors the page reports meanwhile.
func (d *devtools) call(method string, params any, result any) {
	d.t.Helper()
	d.id++
	msg := map[string]any{"id": d.id, "method": method, "params": params}
	if params == nil {
		msg["params"] = map[string]any{}
	}
	if d.session != "" {
		msg["sessionId"] = d.session
	}
	b, err := json.Marshal(msg)
	require.NoError(d.t, err)
	_, err = d.w.Write(append(b, 0))
	require.NoError(d.t, err)
	for {
		raw, err := d.r.ReadBytes(0)
		require.NoError(d.t, err, "chromium closed its DevTools pipe")
		var m struct {
			ID     int
			Method string
			Params json.RawMessage
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		require.NoError(d.t, json.Unmarshal(raw[:len(raw)-1], &m))
		if m.ID == 0 {
			d.noteEvent(m.Method, m.Params)
			continue
		}
		if m.ID != d.id {
			continue
		}
		require.Nil(d.t, m.Error, "%s: %+v", method, m.Error)
		if result != nil {
			require.NoError(d.t, json.Unmarshal(m.Result, result))
		}
		return
	}
}

// noteEvent keeps what the page reports as an error.
func (d *devtools) noteEvent(method string, params json.RawMessage) {
	var e struct {
		Type             string
		Entry            struct{ Level, Text string }
		ExceptionDetails struct{ Text string }
		Args             []struct{ Value any }
	}
	_ = json.Unmarshal(params, &e)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case method == "Runtime.exceptionThrown":
		d.errors = append(d.errors, "exception: "+e.ExceptionDetails.Text)
	case method == "Runtime.consoleAPICalled" && e.Type == "error":
		d.errors = append(d.errors, fmt.Sprint("console.error: ", e.Args))
	case method == "Log.entryAdded" && e.Entry.Level == "error":
		d.errors = append(d.errors, "log: "+e.Entry.Text)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting a
// promise) and decodes its value into result.
func (d *devtools) eval(expr string, result any) {
	d.t.Helper()
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	d.call("Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r)
	require.Nil(d.t, r.ExceptionDetails, "%s", expr)
	if result != nil {
		require.NoError(d.t, json.Unmarshal(r.Result.Value, result))
	}
}

// wait waits until a JavaScript condition holds in the page, checking it
// at every change of the page, for at most a minute (a bound against a
// hang, not a measure of speed).
func (d *devtools) wait(cond string) {
	d.t.Helper()
	var ok bool
	d.eval(`new Promise(function (resolve) {
  function check() { try { return `+cond+`; } catch (e) { return false; } }
  if (check()) return resolve(true);
  var mo = new MutationObserver(function () { if (check()) { mo.disconnect(); resolve(true); } });
  mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  setTimeout(function () { mo.disconnect(); resolve(check()); }, 60000);
})`, &ok)
	require.True(d.t, ok, "the page never came to: %s", cond)
}

// errorsSeen are the errors the page reported.
func (d *devtools) errorsSeen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.errors...)
}

// bodyHas is a page condition: its text holds s.
func bodyHas(s string) string {
	q, _ := json.Marshal(s)
	return `document.body.innerText.indexOf(` + string(q) + `) >= 0`
}

// A page opened on a proxy's --serve URL shows each message as it passes
// the relay, keeps what the reader opened across updates, and says when
// the session has ended; the browser reports no error (a script error or
// a Content-Security-Policy violation would be one).
func TestLivePageInBrowser(t *testing.T) {
	browser(t)
	w := startWatched(t, "--serve", ":0", "--", fakeAgent(t), "-echo")
	page := openInBrowser(t, w.url)
	page.wait(bodyHas("live · updating as messages pass"))
	// Without --record nothing is recorded: the page says how the proxy was run.
	page.wait(bodyHas("run by acp-proxy "))
	var recordedBy bool
	page.eval(bodyHas("recorded by")+` || `+bodyHas("recorded as"), &recordedBy)
	assert.False(t, recordedBy, "a session served without --record is not recorded")

	// The agent echoes what the client sends: a tool call, then a prompt.
	send := func(line string) {
		t.Helper()
		_, err := io.WriteString(w.stdin, line+"\n")
		require.NoError(t, err)
		_, err = w.stdout.ReadString('\n') // it has passed the relay (both ways)
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"the first call","kind":"execute","status":"in_progress"}}}`)
	page.wait(`document.querySelectorAll(".call-row").length === 1`)
	page.eval(`document.querySelector(".call-row").click(), true`, nil)

	passed := time.Now()
	send(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"a message to watch for"}]}}`)
	page.wait(bodyHas("a message to watch for"))
	t.Logf("the message was on the page %v after it passed the relay (BenchmarkLivePageInBrowser measures it)", time.Since(passed).Round(time.Millisecond))
	var open int
	page.eval(`document.querySelectorAll(".call-detail:not(.hidden)").length`, &open)
	assert.Equal(t, 1, open, "the call the reader opened stays open as the page updates")

	require.NoError(t, w.stdin.Close())
	page.wait(bodyHas("live · the session ended: this is all of it"))
	require.NoError(t, w.cmd.Wait())
	assert.Empty(t, page.errorsSeen())
}

// A page opened when as many pages as the live view serves are open
// already says it waits, connects by itself once one is closed, and then
// shows each message as it passes; bidirectional controls in an agent's
// text are shown by name, not applied.
func TestALivePageThatFindsNoPlaceWaitsForOne(t *testing.T) {
	browser(t)
	w := startWatched(t, "--serve", ":0", "--", fakeAgent(t), "-echo")
	events := strings.Replace(w.url, "/?", "/events?", 1)
	open := make([]*http.Response, live.MaxBrowsers)
	for i := range open {
		resp, err := http.Get(events)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
		_, err = bufio.NewReader(resp.Body).ReadString('\n') // it has its place
		require.NoError(t, err)
		open[i] = resp
		defer resp.Body.Close()
	}
	page := openInBrowser(t, w.url)
	page.wait(bodyHas("live · waiting: 8 pages are open already; this page connects by itself when one is closed"))

	open[0].Body.Close()
	page.wait(bodyHas("live · updating as messages pass"))
	_, err := io.WriteString(w.stdin, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"rm \u202Eevil","kind":"execute","status":"in_progress"}}}`+"\n")
	require.NoError(t, err)
	page.wait(bodyHas("rm [U+202E]evil"))
	require.NoError(t, w.stdin.Close())
	page.wait(bodyHas("live · the session ended: this is all of it"))
	require.NoError(t, w.cmd.Wait())
	assert.Empty(t, page.errorsSeen())
}

// BenchmarkLivePageInBrowser measures how long a message takes from
// passing the relay to being on an open page in Chromium (ms/message, and
// the slowest): each iteration sends one prompt and waits until the page
// shows it, so each comes just after the page's last update.
func BenchmarkLivePageInBrowser(b *testing.B) {
	w := startWatched(b, "--serve", ":0", "--", fakeAgent(b), "-echo")
	page := openInBrowser(b, w.url)
	var total, slowest time.Duration
	for i := 0; b.Loop(); i++ {
		marker := fmt.Sprintf("benchmark message %d.", i)
		_, err := fmt.Fprintf(w.stdin, `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":%q}]}}`+"\n", i, marker)
		require.NoError(b, err)
		_, err = w.stdout.ReadString('\n')
		require.NoError(b, err)
		passed := time.Now()
		page.wait(bodyHas(marker))
		took := time.Since(passed)
		total += took
		slowest = max(slowest, took)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-page/msg")
	b.ReportMetric(float64(slowest.Milliseconds()), "ms-to-page-max")
	_ = w.stdin.Close()
	_ = w.cmd.Wait()
	if errs := page.errorsSeen(); len(errs) > 0 {
		b.Fatal(strings.Join(errs, "\n"))
	}
}

// view --follow of a real session in Chromium: the page shows the trace's
// tool call, its updates, and says it is live. With
// LIVE_SCREENSHOT=…/docs/live.png it saves the README's picture.
func TestViewFollowInBrowser(t *testing.T) {
	browser(t)
	path := filepath.Join(tracesDir, "codex-0.13-plain-shell-900.jsonl")
	w := startWatched(t, "view", "--follow", path)
	page := openInBrowser(t, w.url)
	page.wait(`document.querySelectorAll(".call-row").length === 1`)
	page.wait(bodyHas("for i in $(seq 1 900); do echo line $i; done"))
	page.eval(`document.querySelector(".call-row").click(), true`, nil)
	page.wait(`document.querySelectorAll(".call-detail:not(.hidden)").length === 1`)
	page.wait(bodyHas("What the client saw at the end"))
	page.wait(bodyHas("line 900"))
	page.wait(bodyHas("live · updating as messages pass"))
	assert.Empty(t, page.errorsSeen())
	if shot := os.Getenv("LIVE_SCREENSHOT"); shot != "" {
		page.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 1500, "deviceScaleFactor": 1, "mobile": false}, nil)
		var img struct{ Data []byte }
		page.call("Page.captureScreenshot", map[string]any{"format": "png"}, &img)
		require.NoError(t, os.WriteFile(shot, img.Data, 0o644))
		t.Logf("screenshot: %s", shot)
	}
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, w.cmd.Wait())
}
