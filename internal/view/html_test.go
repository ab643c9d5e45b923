package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is an agent message that would run script if the page ever
// treated trace content as markup, or ended its data block early.
const hostile = "<script>alert(1)</script> <img src=x onerror=alert(2)> <b>bold</b> &amp; " +
	"</script><script>alert(3)</script> </SCRIPT > \u2028\u2029 <!-- -->"

func hostileTrace() string {
	q, _ := json.Marshal(hostile)
	return traceOf(
		0.1, c2a, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":`+string(q)+`}]}}`,
		0.2, a2c, update(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":`+string(q)+`}}`),
		0.3, a2c, update(`{"sessionUpdate":"tool_call","toolCallId":"</script>","title":`+string(q)+`,"kind":"execute","status":"completed","content":[{"type":"content","content":{"type":"text","text":`+string(q)+`}}]}`),
	)
}

// Trace content is data: the page carries it only inside its JSON block,
// escaped so that nothing in it can close the block or be read as markup,
// and it reads back exactly.
func TestPageEmbedsTraceContentAsData(t *testing.T) {
	d := build(t, hostileTrace())
	d.Trace = `<b>{{DATA}}</b>.jsonl`
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, d))
	html := page.String()

	empty := &Data{Trace: "x", Flags: []string{}, Filters: []string{}}
	var template bytes.Buffer
	require.NoError(t, WriteHTML(&template, empty))
	count := func(s, sub string) int { return strings.Count(strings.ToLower(s), sub) }
	for _, tag := range []string{"</script", "<script", "<img", "<b>", "<!--", "\u2028", "\u2029"} {
		assert.Equal(t, count(template.String(), tag), count(html, tag), "%q from the trace reached the page", tag)
	}
	assert.Contains(t, html, "<title>&lt;b&gt;{{DATA}}&lt;/b&gt;.jsonl · acp-proxy view</title>")

	got := embeddedData(t, html)
	require.Len(t, got.Conversation, 2)
	assert.Equal(t, hostile, got.Conversation[0].Text.Text)
	assert.Equal(t, hostile, got.Conversation[1].Text.Text)
	assert.Equal(t, hostile, got.Calls[0].Title)
	assert.Equal(t, "</script>", got.Calls[0].ID)
}

// embeddedData decodes the page's data block.
func embeddedData(t *testing.T, html string) Data {
	t.Helper()
	open := `<script type="application/json" id="` + DataElementID + `">`
	_, rest, ok := strings.Cut(html, open)
	require.True(t, ok, "no data block")
	block, _, ok := strings.Cut(rest, "</script>")
	require.True(t, ok)
	var d Data
	require.NoError(t, json.Unmarshal([]byte(block), &d))
	return d
}

// The page needs nothing from the network: no URL in its markup, style or
// script but the SVG namespace, and a policy that forbids loading anything.
func TestPageIsSelfContained(t *testing.T) {
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, build(t, sampleSession)))
	html := strings.ReplaceAll(page.String(), `"http://www.w3.org/2000/svg"`, "")
	for _, s := range []string{"http:", "https:", "//cdn", "@import", "url(", "src=", "href=", "fetch(", "XMLHttpRequest"} {
		assert.NotContains(t, html, s)
	}
	assert.Contains(t, html, `content="default-src 'none';`)
}

// The page's Content-Security-Policy lets it run its own script, named by
// its hash, and no other: not 'unsafe-inline', which would let a script
// that got onto the page run too. The live page's policy is the same, and
// reads updates from its server.
func TestThePageRunsOnlyItsOwnScript(t *testing.T) {
	var static, live bytes.Buffer
	require.NoError(t, WriteHTML(&static, &Data{Trace: "x", Flags: []string{}, Filters: []string{}}))
	require.NoError(t, WriteLiveHTML(&live, "live: x", []byte(`{}`)))
	for name, page := range map[string]string{"view": static.String(), "live": live.String()} {
		_, rest, ok := strings.Cut(page, `http-equiv="Content-Security-Policy" content="`)
		require.True(t, ok, name)
		csp, _, _ := strings.Cut(rest, `"`)
		var scriptSrc string
		for _, d := range strings.Split(csp, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(d), "script-src "); ok {
				scriptSrc = v
			}
		}
		_, script, ok := strings.Cut(page, "\n<script>")
		require.True(t, ok, name)
		script, _, ok = strings.Cut(script, "</script>")
		require.True(t, ok, name)
		assert.Equal(t, ScriptHash(script), scriptSrc, "%s: the page's script, by its hash, and nothing else", name)
		assert.Equal(t, csp == LiveCSP, name == "live")
	}
}
