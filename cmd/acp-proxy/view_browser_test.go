package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/view"
)

// The pages are tested in a real browser: headless Chromium loads a page
// made by `acp-proxy view`, to which the test adds two scripts of its own:
// one before the page's, recording console errors, uncaught exceptions and
// any call of alert(), and one after it, which inspects the rendered DOM,
// clicks, and writes what it found as JSON into the DOM for --dump-dom to
// hand back. Nothing but the standard library and the browser.

// browser returns the Chromium to use, or skips the test without one
// (fails, with REQUIRE_BROWSER=1: CI installs it).
func browser(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	require.NotEqual(t, "1", os.Getenv("REQUIRE_BROWSER"), "REQUIRE_BROWSER=1 and no chromium on PATH (apt-get install chromium)")
	t.Skip("no chromium on PATH: the page is not tested in a browser (apt-get install chromium; REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// hooks go before the page's script: what the page must never do is
// recorded, not done.
const hooks = `<script>
window.__errors = []; window.__alerts = 0;
(function () {
  var ce = console.error;
  console.error = function () { window.__errors.push(Array.prototype.join.call(arguments, " ")); ce.apply(console, arguments); };
  window.addEventListener("error", function (e) { window.__errors.push("uncaught: " + e.message); });
  window.alert = window.confirm = window.prompt = function () { window.__alerts++; };
})();
</script>`

// probe goes after the page's script. It reports what a person would see,
// expands every tool call (and collapses the first again), and reports
// what the expanded rows show.
const probe = `<script>
(function () {
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  function texts(sel) { return all(sel).map(function (e) { return e.textContent; }); }
  var r = {};
  r.ready = document.documentElement.getAttribute("data-ready");
  r.renderMs = Number(document.documentElement.getAttribute("data-render-ms"));
  void document.body.offsetHeight; // lay the rendered page out
  r.layoutMs = performance.now();  // since navigation started: load, parse, render, layout
  r.rows = all(".call-row").length;
  var firstRow = document.querySelector(".call-row");
  r.firstRowBottom = firstRow ? firstRow.getBoundingClientRect().bottom : -1; // on the first screen: below innerHeight is not
  r.innerHeight = window.innerHeight;
  var table = document.querySelector(".calls-table");
  r.count = table ? Number(table.getAttribute("data-count")) : 0;
  r.titles = texts(".call-row .call-title");
  r.detailsBefore = all(".call-detail").length;
  all(".call-row").forEach(function (row) { row.click(); });
  r.expanded = all(".call-detail:not(.hidden)").length;
  r.diffPaths = texts(".call-detail .diff-box .path");
  r.diffAdded = texts(".call-detail .diff .add");
  r.terminals = texts(".call-detail pre.term");
  r.texts = texts(".call-detail pre.text");
  if (r.rows) { all(".call-row")[0].click(); r.collapsed = document.querySelector(".call-detail").classList.contains("hidden"); all(".call-row")[0].click(); }
  r.conversation = texts(".event .body");
  r.messages = all(".msg-row").length;
  // The search box and the method filter narrow what is shown.
  function set(id, v) { var e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event("input")); }
  set("search", "no such thing anywhere");
  r.searchCalls = all(".call-row:not(.hidden)").length; r.searchMessages = all(".msg-row").length;
  set("search", "");
  r.reopened = all(".call-detail:not(.hidden)").length;
  set("method-filter", "initialize");
  r.initLabels = texts(".msg-row .label");
  set("method-filter", "all");
  r.bodyText = document.body.innerText;
  r.images = document.images.length;
  r.pwned = window.__pwned || 0;
  r.errors = window.__errors; r.alerts = window.__alerts;
  var out = document.createElement("pre");
  out.id = "test-results";
  out.textContent = JSON.stringify(r);
  document.body.appendChild(out);
})();
</script>`

// pageResult is what the probe found.
type pageResult struct {
	Ready          string   `json:"ready"`
	RenderMs       float64  `json:"renderMs"`
	LayoutMs       float64  `json:"layoutMs"`
	Rows           int      `json:"rows"`
	FirstRowBottom float64  `json:"firstRowBottom"`
	InnerHeight    float64  `json:"innerHeight"`
	Count          int      `json:"count"`
	Titles         []string `json:"titles"`
	DetailsBefore  int      `json:"detailsBefore"`
	Expanded       int      `json:"expanded"`
	Collapsed      bool     `json:"collapsed"`
	DiffPaths      []string `json:"diffPaths"`
	DiffAdded      []string `json:"diffAdded"`
	Terminals      []string `json:"terminals"`
	Texts          []string `json:"texts"`
	Conversation   []string `json:"conversation"`
	Messages       int      `json:"messages"`
	SearchCalls    int      `json:"searchCalls"`
	SearchMessages int      `json:"searchMessages"`
	InitLabels     []string `json:"initLabels"`
	Reopened       int      `json:"reopened"`
	BodyText       string   `json:"bodyText"`
	Images         int      `json:"images"`
	Pwned          int      `json:"pwned"`
	Errors         []string `json:"errors"`
	Alerts         int      `json:"alerts"`
}

// chromiumFlags make headless Chromium work in a container and keep it off
// the network.
func chromiumFlags(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + profile}
}

// instrument adds the test's scripts to a page. The page's data cannot
// hold "<head>" or "</body>" (it is escaped), so the first <head> and the
// last </body> are the page's own.
func instrument(t *testing.T, page []byte) []byte {
	t.Helper()
	s := string(page)
	i, j := strings.Index(s, "<head>"), strings.LastIndex(s, "</body>")
	require.True(t, i >= 0 && j > i, "the page has no <head> or </body>")
	s = s[:i+len("<head>")] + hooks + s[i+len("<head>"):j] + probe + s[j:]
	// The page runs only the scripts its CSP names by their hashes: name
	// the test's too.
	allow := "script-src " + testScriptHash(hooks) + " " + testScriptHash(probe) + " "
	require.Equal(t, 1, strings.Count(s, "script-src "), "the page's CSP names its scripts once")
	return []byte(strings.Replace(s, "script-src ", allow, 1))
}

// testScriptHash is the CSP source of the inline <script> element el.
func testScriptHash(el string) string {
	return view.ScriptHash(strings.TrimSuffix(strings.TrimPrefix(el, "<script>"), "</script>"))
}

// loadPage opens the page in Chromium and returns what the probe found.
// With shot, it also saves a screenshot of the page as the probe left it
// (screenshot "": in the test's temp directory).
func loadPage(t *testing.T, page []byte, shot bool, screenshot string) pageResult {
	return loadPageAt(t, page, "", shot, screenshot)
}

// loadPageAt is loadPage with a fragment (#…) on the page's URL.
func loadPageAt(t *testing.T, page []byte, fragment string, shot bool, screenshot string) pageResult {
	t.Helper()
	chromium := browser(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	require.NoError(t, os.WriteFile(path, instrument(t, page), 0o644))
	url := "file://" + path + fragment

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// A screen a person reads the page on: the tool calls must be on it.
	cmd := exec.CommandContext(ctx, chromium, append(chromiumFlags(filepath.Join(dir, "profile")), "--window-size=1400,1000", "--dump-dom", url)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	require.NoError(t, err, "chromium --dump-dom: %s", stderr.String())
	_, rest, ok := strings.Cut(string(dom), `<pre id="test-results">`)
	require.True(t, ok, "the probe wrote no results; the page's DOM:\n%.2000s", dom)
	raw, _, _ := strings.Cut(rest, "</pre>")
	var r pageResult
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(raw)), &r))

	if !shot {
		return r
	}
	if screenshot == "" {
		screenshot = filepath.Join(dir, "page.png")
	}
	cmd = exec.CommandContext(ctx, chromium, append(chromiumFlags(filepath.Join(dir, "profile-shot")),
		"--window-size=1280,1700", "--screenshot="+screenshot, url)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "chromium --screenshot: %s", out)
	st, err := os.Stat(screenshot)
	require.NoError(t, err, "no screenshot: %s", out)
	require.Greater(t, st.Size(), int64(10_000), "an empty screenshot")
	t.Logf("screenshot: %s", screenshot)
	return r
}

// TestViewInBrowser loads pages made from committed real traces in
// Chromium and checks what a person sees: every tool call as a row, its
// title, its diff with the file's path, its terminal output, rows that
// expand and collapse, and no script error.
func TestViewInBrowser(t *testing.T) {
	browser(t)
	for _, c := range []struct {
		trace  string
		flags  []string
		title  string
		diff   string   // a diff path ends with this
		output []string // lines of terminal output shown
	}{
		{"codex-0.13-plain-shell-900", []string{"--terminal-output", "--deltas"},
			"for i in $(seq 1 900); do echo line $i; done", "", []string{"line 1\n", "line 900\n"}},
		{"codex-0.13-zed-shell-5", nil,
			"for i in $(seq 1 5); do echo line $i; sleep 0.05; done", "", []string{"line 1\nline 2\nline 3\nline 4\nline 5\n"}},
		{"codex-0.13-plain-heredoc", []string{"--shell-to-patch"},
			// the agent's title names the command: it stays beside the diff
			"cat > hello.py <<'EOF'\n# written by a heredoc: $HOME and `date` stay literal\nprint(\"hello, world\")\nEOF", "/project/hello.py", nil},
	} {
		t.Run(c.trace, func(t *testing.T) {
			path := filepath.Join(tracesDir, c.trace+".jsonl")
			trace, err := os.ReadFile(path)
			require.NoError(t, err)
			page := viewOK(t, append(c.flags, path)...)
			wantCalls := strings.Count(string(trace), `"sessionUpdate":"tool_call"`)

			// One screenshot is enough (each costs a browser run): the
			// demo trace's, which VIEW_SCREENSHOT makes the README's.
			demo := c.trace == "codex-0.13-plain-shell-900"
			r := loadPage(t, page, demo, os.Getenv("VIEW_SCREENSHOT"))
			assert.Equal(t, "1", r.Ready, "the page finished rendering")
			assert.Empty(t, r.Errors, "console errors")
			assert.Zero(t, r.Alerts)
			assert.Equal(t, wantCalls, r.Rows, "one row per tool call")
			assert.Positive(t, r.InnerHeight) // 1000 less what headless Chromium keeps of the window
			assert.Positive(t, r.FirstRowBottom)
			assert.LessOrEqual(t, r.FirstRowBottom, r.InnerHeight, "the tool calls are on the first screen at 1400×1000")
			assert.Contains(t, r.BodyText, "click a row for the call as the client saw it", "the calls' legend")
			assert.Equal(t, wantCalls, r.Count)
			assert.Contains(t, r.Titles, c.title)
			assert.Zero(t, r.DetailsBefore, "rows start collapsed")
			assert.Equal(t, wantCalls, r.Expanded, "a click expands a row")
			assert.True(t, r.Collapsed, "a second click collapses it")
			assert.Positive(t, r.Messages)
			assert.Zero(t, r.SearchCalls, "a search hides the tool calls it does not match")
			assert.Zero(t, r.SearchMessages, "and the messages")
			assert.Equal(t, wantCalls, r.Reopened, "clearing the search shows the open rows again")
			assert.NotEmpty(t, r.InitLabels, "the method filter keeps initialize")
			for _, l := range r.InitLabels {
				assert.Equal(t, "initialize", l)
			}
			if c.diff != "" {
				require.NotEmpty(t, r.DiffPaths, "no diff shown")
				assert.True(t, strings.HasSuffix(r.DiffPaths[0], c.diff), "diff path %q", r.DiffPaths[0])
				assert.Contains(t, r.DiffAdded, `+ print("hello, world")`)
			}
			if demo {
				assert.Contains(t, r.BodyText, "The agent sent 902 updates, 4.03 MB; the client received 3 updates, 36.3 KB", "each call's change, without raw JSON")
				assert.Contains(t, r.BodyText, "The updates as the client received them, one by one (3)")
				assert.Regexp(t, `before #1\s+client → agent\s+initialize[^\n]*\n[^\n]*after #1\s+client → agent\s+initialize`, r.BodyText, "each message, then what it became")
			}
			shown := strings.Join(append(r.Terminals, r.Texts...), "\n")
			for _, o := range c.output {
				assert.Contains(t, shown, o, "terminal output")
			}
		})
	}
}

// TestViewInBrowserShowsTraceContentAsText: a message holding script,
// markup and a "</script>" sequence is shown as those characters, and
// none of it runs.
func TestViewInBrowserShowsTraceContentAsText(t *testing.T) {
	browser(t)
	hostile := `<script>alert(1)</script><img src=x onerror="window.__pwned=1;alert(2)"><b>bold</b></script><script>window.__pwned=2</script>`
	q, err := json.Marshal(hostile)
	require.NoError(t, err)
	trace := `{"t":0.1,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":` + string(q) + `}]}}}
{"t":0.2,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + string(q) + `}}}}}
{"t":0.3,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":` + string(q) + `,"kind":"execute","status":"completed","content":[{"type":"content","content":{"type":"text","text":` + string(q) + `}}]}}}}
`
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
	page := viewOK(t, "--terminal-output", path)
	r := loadPage(t, page, false, "")
	assert.Equal(t, "1", r.Ready)
	assert.Empty(t, r.Errors)
	assert.Zero(t, r.Alerts, "a script from the trace ran")
	assert.Zero(t, r.Pwned, "an event handler from the trace ran")
	assert.Zero(t, r.Images, "markup from the trace became an element")
	assert.Contains(t, r.Conversation, hostile, "the prompt is shown as text")
	assert.Equal(t, []string{hostile}, r.Titles)
	assert.Contains(t, r.Texts, hostile)
	assert.Contains(t, r.BodyText, hostile)
}

// bidiControls are the characters that reorder the text around them:
// embeddings and overrides, isolates, and marks.
var bidiControls = []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C}

// TestViewInBrowserShowsBidiControls: an agent's text holding
// bidirectional controls (a command made to read reversed: "rm -rf ~"
// written as "\u202E~ fr- mr") is shown with each control named, [U+202E],
// in the call's title, its output, the conversation and the messages:
// the page applies none of them.
func TestViewInBrowserShowsBidiControls(t *testing.T) {
	browser(t)
	var text, want strings.Builder
	for _, c := range bidiControls {
		text.WriteString("ls " + string(c) + "x ")
		fmt.Fprintf(&want, "ls [U+%04X]x ", c)
	}
	q, err := json.Marshal(text.String())
	require.NoError(t, err)
	trace := `{"t":0.1,"dir":"client->agent","msg":{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":` + string(q) + `}]}}}
{"t":0.3,"dir":"agent->client","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":` + string(q) + `,"kind":"execute","status":"completed","content":[{"type":"content","content":{"type":"text","text":` + string(q) + `}}]}}}}
`
	path := filepath.Join(t.TempDir(), "bidi.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
	r := loadPage(t, viewOK(t, path), false, "")
	assert.Empty(t, r.Errors)
	assert.Equal(t, []string{want.String()}, r.Titles)
	assert.Contains(t, r.Conversation, want.String())
	assert.Contains(t, r.Texts, want.String())
	for _, c := range bidiControls {
		assert.NotContains(t, r.BodyText, string(c), "U+%04X is on the page", c)
	}
}
