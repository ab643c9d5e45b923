package output

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTerminalOutputInjects(t *testing.T) {
	req := func(params string) string {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":` + params + `}`
	}
	cases := []struct {
		name, in, want string // want "" means unchanged
	}{
		{"no clientCapabilities", req(`{"protocolVersion":1}`),
			req(`{"protocolVersion":1,"clientCapabilities":{"_meta":{"terminal_output":true}}}`)},
		{"no _meta", req(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":false}}`),
			req(`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":false,"_meta":{"terminal_output":true}}}`)},
		{"_meta with other keys", req(`{ "clientCapabilities" : { "_meta" : {"terminal-auth":true} } ,"protocolVersion":1}`),
			req(`{ "clientCapabilities" : { "_meta" : {"terminal-auth":true,"terminal_output":true} } ,"protocolVersion":1}`)},
		{"empty _meta", req(`{"clientCapabilities":{"_meta":{}}}`), req(`{"clientCapabilities":{"_meta":{"terminal_output":true}}}`)},
		{"only the delta variant", req(`{"clientCapabilities":{"_meta":{"terminal_output_delta":true}}}`),
			req(`{"clientCapabilities":{"_meta":{"terminal_output_delta":true,"terminal_output":true}}}`)},
		// Only the v1 shape is known: v2 has no such capability.
		{"v2 capabilities", req(`{"protocolVersion":2,"capabilities":{"fs":{}}}`), ""},
		{"v2 capabilities, no version", req(`{"capabilities":{"fs":{}}}`), ""},
		{"another version", req(`{"protocolVersion":2,"clientCapabilities":{"fs":{}}}`), ""},
		{"a version that is no number", req(`{"protocolVersion":"1","clientCapabilities":{}}`), ""},
		{"key already true", req(`{"clientCapabilities":{"_meta":{"terminal_output":true}}}`), ""},
		{"key present, false", req(`{"clientCapabilities":{"_meta":{"terminal_output":false}}}`), ""},
		{"key present, null", req(`{"clientCapabilities":{"_meta":{"terminal_output":null}}}`), ""},
		{"null clientCapabilities", req(`{"clientCapabilities":null}`), ""},
		{"null _meta", req(`{"clientCapabilities":{"_meta":null}}`), ""},
		{"_meta an array", req(`{"clientCapabilities":{"_meta":[]}}`), ""},
		{"params not an object", req(`[1]`), ""},
		{"no params", `{"jsonrpc":"2.0","id":0,"method":"initialize"}`, ""},
		{"a notification", `{"jsonrpc":"2.0","method":"initialize","params":{}}`, ""},
		{"escapes kept", req(`{"clientInfo":{"name":"\u00e9d<>"},"n":1e400}`),
			req(`{"clientInfo":{"name":"\u00e9d<>"},"n":1e400,"clientCapabilities":{"_meta":{"terminal_output":true}}}`)},
		{"invalid JSON", `{"method":"initialize","id":1,"params":{`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, plainClient, codexAgent, &TerminalOutput{})
			h.client(c.in)
			want := c.want
			if want == "" {
				want = c.in
			}
			require.Len(t, h.toAg, 1)
			assert.Equal(t, want, h.toAg[0])
		})
	}
}

func TestTerminalOutputTranslates(t *testing.T) {
	ms := time.Millisecond
	raw := func(output string) string {
		return `{"stdout":` + q(output) + `,"stderr":"","aggregated_output":` + q(output) + `,"exit_code":0,"formatted_output":"(cut)"}`
	}
	// end is codexEnd as a client without the extension gets it.
	end := func(id, agentOutput, showOutput string) string {
		return upd(id, `"status":"completed","rawOutput":`+raw(agentOutput)+`,"content":`+textContent(shFence(showOutput)))
	}
	cases := []struct {
		name  string
		agent string
		steps []step
		want  []string
	}{{
		name: "leading edge, then one update per interval, final complete",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(out("t1", "a\n")),
			after(10 * ms), fromAgent(out("t1", "b\n")),
			after(40 * ms), fromAgent(out("t1", "c\n")),
			after(50 * ms), // 100 ms after the first send
			after(20 * ms), fromAgent(out("t1", "d\n")),
			after(10 * ms), fromAgent(codexEnd("t1", "completed", "a\nb\nc\nd\n", 0)),
		},
		want: []string{
			plainCallMsg("t1"),
			shown("t1", "a\n"),
			shown("t1", "a\nb\nc\n"),
			end("t1", "a\nb\nc\nd\n", "a\nb\nc\nd\n"),
		},
	}, {
		name: "the final update shows the whole output again: agent-shell renders each update's own content",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(out("t1", "a\n")),
			after(time.Second), fromAgent(codexEnd("t1", "completed", "a\n", 0)),
		},
		want: []string{plainCallMsg("t1"), shown("t1", "a\n"), end("t1", "a\n", "a\n")},
	}, {
		name: "output the stream lost is taken from rawOutput",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(out("t1", "a\n")),
			fromAgent(codexEnd("t1", "completed", "a\nb\nc\n", 0)),
		},
		want: []string{plainCallMsg("t1"), shown("t1", "a\n"), end("t1", "a\nb\nc\n", "a\nb\nc\n")},
	}, {
		name: "a shorter rawOutput does not cut the streamed output",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(out("t1", "a\nb\n")),
			fromAgent(codexEnd("t1", "completed", "a\n", 0)),
		},
		want: []string{plainCallMsg("t1"), shown("t1", "a\nb\n"), end("t1", "a\n", "a\nb\n")},
	}, {
		name: "another message flushes held output first",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(out("t1", "a\n")),
			fromAgent(out("t1", "b\n")),
			fromAgent(chunk),
		},
		want: []string{plainCallMsg("t1"), shown("t1", "a\n"), shown("t1", "a\nb\n"), chunk},
	}, {
		name: "the prompt response never overtakes held output",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(out("t1", "a\n")),
			fromAgent(out("t1", "b\n")),
			fromAgent(promptDone),
			fromAgent(out("t1", "late\n")), // appended: the call ended with its turn, and is kept
			after(time.Second),
		},
		want: []string{plainCallMsg("t1"), shown("t1", "a\n"), shown("t1", "a\nb\n"), promptDone, shown("t1", "a\nb\nlate\n")},
	}, {
		name: "two calls coalesce independently; a status change flushes the other",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(termCallMsg("t2")),
			fromAgent(out("t1", "a\n")),
			fromAgent(out("t2", "x\n")),
			fromAgent(out("t1", "b\n")),
			fromAgent(out("t2", "y\n")),
			fromAgent(codexEnd("t2", "completed", "x\ny\n", 0)),
		},
		want: []string{
			plainCallMsg("t1"), plainCallMsg("t2"),
			shown("t1", "a\n"), shown("t2", "x\n"),
			shown("t1", "a\nb\n"),
			end("t2", "x\ny\n", "x\ny\n"),
		},
	}, {
		name: "a failed command with no output gets no content",
		steps: []step{
			fromAgent(termCallMsg("t1")),
			fromAgent(upd("t1", `"status":"failed","rawOutput":{"exit_code":127},"_meta":{"terminal_exit":{"terminal_id":"t1","exit_code":127,"signal":null}}`)),
		},
		want: []string{plainCallMsg("t1"), upd("t1", `"status":"failed","rawOutput":{"exit_code":127}`)},
	}, {
		name:  "claude: other _meta keys stay, terminal items become the output",
		agent: claudeAgent,
		steps: []step{
			fromAgent(update(`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_info":{"terminal_id":"tu1"}},"toolCallId":"tu1","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[{"type":"terminal","terminalId":"tu1"}]`)),
			fromAgent(`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"options":[],"sessionId":"s1","toolCall":{"toolCallId":"tu1","title":"ls","kind":"execute","content":[{"type":"terminal","terminalId":"tu1"}]}}}`),
			fromAgent(update(`"_meta":{"terminal_output":{"terminal_id":"tu1","data":"l1\nl2"}},"toolCallId":"tu1","sessionUpdate":"tool_call_update"`)),
			fromAgent(update(`"_meta":{"claudeCode":{"toolName":"Bash"},"terminal_exit":{"terminal_id":"tu1","exit_code":0,"signal":null}},"toolCallId":"tu1","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"l1\nl2","content":[{"type":"terminal","terminalId":"tu1"}]`)),
		},
		want: []string{
			update(`"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"tu1","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Terminal","kind":"execute","content":[]`),
			`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"options":[],"sessionId":"s1","toolCall":{"toolCallId":"tu1","title":"ls","kind":"execute","content":[]}}}`,
			upd("tu1", `"content":`+textContent("```console\nl1\nl2\n```")),
			update(`"_meta":{"claudeCode":{"toolName":"Bash"}},"toolCallId":"tu1","sessionUpdate":"tool_call_update","status":"completed","rawOutput":"l1\nl2","content":` + textContent("```console\nl1\nl2\n```")),
		},
	}, {
		name: "other content items around the terminal stay in place",
		steps: []step{
			fromAgent(update(`"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"pre"}},{"type":"terminal","terminalId":"t1"},{"type":"diff","path":"/a","oldText":null,"newText":"x"},{"type":"future","x":1}],"_meta":{"terminal_info":{"terminal_id":"t1"}}`)),
			fromAgent(out("t1", "o\n")),
		},
		want: []string{
			update(`"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","content":[{"type":"content","content":{"type":"text","text":"pre"}},{"type":"diff","path":"/a","oldText":null,"newText":"x"},{"type":"future","x":1}]`),
			upd("t1", `"content":[{"type":"content","content":{"type":"text","text":"pre"}},`+strings.TrimPrefix(textContent(shFence("o\n")), "[")[:len(textContent(shFence("o\n")))-2]+`,{"type":"diff","path":"/a","oldText":null,"newText":"x"},{"type":"future","x":1}]`),
		},
	}, {
		name: "a terminal the client created (no extension keys) is the client's",
		steps: []step{
			fromAgent(update(`"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","content":[{"type":"terminal","terminalId":"term-7"}]`)),
			fromAgent(upd("t1", `"status":"completed","content":[{"type":"terminal","terminalId":"term-7"}]`)),
		},
		want: []string{
			update(`"sessionUpdate":"tool_call","toolCallId":"t1","kind":"execute","content":[{"type":"terminal","terminalId":"term-7"}]`),
			upd("t1", `"status":"completed","content":[{"type":"terminal","terminalId":"term-7"}]`),
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agent := c.agent
			if agent == "" {
				agent = codexAgent
			}
			h := newHarness(t, plainClient, agent, &TerminalOutput{})
			h.run(c.steps...)
			assert.Equal(t, c.want, h.take())
			assert.Empty(t, h.errs)
		})
	}
}

// TestTerminalOutputBudget streams a large output fast and slow: the output
// bytes sent stay within the policy's budget, and the client sees the
// output grow while it runs.
func TestTerminalOutputBudget(t *testing.T) {
	output := numberedLines(35001)
	for _, c := range []struct {
		name    string
		every   time.Duration // between the 10,000 chunks
		minSent int           // updates while it runs
	}{
		{"10,000 deltas in 1 s", 100 * time.Microsecond, 4},
		{"10,000 deltas in 100 s", 10 * time.Millisecond, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, plainClient, codexAgent, &TerminalOutput{})
			h.agent(termCallMsg("t1"))
			size := len(output) / 10000
			for i := 0; i < len(output); i += size {
				h.agent(out("t1", output[i:min(i+size, len(output))]))
				h.advance(c.every)
			}
			live := h.take()
			h.agent(codexEnd("t1", "completed", output, 0))
			final := h.take()
			sent := 0
			for _, l := range live[1:] {
				sent += len(seen(t, []string{l})["t1"])
			}
			duration := time.Duration(10000) * c.every
			budget := budgetFactor*len(output) + budgetSlack + int(rateBytes*duration.Seconds())
			t.Logf("%d updates while running, %d output bytes in them (budget %d) for %d bytes of output",
				len(live)-1, sent, budget, len(output))
			assert.GreaterOrEqual(t, len(live)-1, c.minSent)
			assert.LessOrEqual(t, sent, budget)
			require.Len(t, final, 1)
			sameText(t, shFence(output), seen(t, append(live, final...))["t1"])
		})
	}
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("line ")
		b.WriteString(itoa(i))
		b.WriteString("\n")
	}
	return b.String()
}

func TestTerminalOutputPassesThrough(t *testing.T) {
	raw := func(output string) string {
		return `{"stdout":` + q(output) + `,"stderr":"","aggregated_output":` + q(output) + `,"exit_code":0,"formatted_output":"(cut)"}`
	}
	cases := []struct {
		name   string
		client string
		steps  []step
		want   []string
	}{{
		name:   "a streamed call is forwarded as it is",
		client: zedClient,
		steps:  []step{fromAgent(termCallMsg("t1")), fromAgent(out("t1", "a\n")), fromAgent(codexEnd("t1", "completed", "a\n", 0))},
		want:   []string{termCallMsg("t1"), out("t1", "a\n"), codexEnd("t1", "completed", "a\n", 0)},
	}, {
		name:   "what the stream dropped is sent before the end",
		client: zedClient,
		steps:  []step{fromAgent(termCallMsg("t1")), fromAgent(out("t1", "a\n")), fromAgent(codexEnd("t1", "completed", "a\nb\nc\n", 0))},
		want:   []string{termCallMsg("t1"), out("t1", "a\n"), out("t1", "b\nc\n"), codexEnd("t1", "completed", "a\nb\nc\n", 0)},
	}, {
		name:   "a rawOutput that does not extend the stream adds nothing",
		client: zedClient,
		steps:  []step{fromAgent(termCallMsg("t1")), fromAgent(out("t1", "a\n")), fromAgent(codexEnd("t1", "completed", "x\nb\nc\n", 0))},
		want:   []string{termCallMsg("t1"), out("t1", "a\n"), codexEnd("t1", "completed", "x\nb\nc\n", 0)},
	}, {
		name:   "a client of the delta variant gets that key",
		client: deltaClient,
		steps:  []step{fromAgent(termCallMsg("t1")), fromAgent(out("t1", "a\n")), fromAgent(codexEnd("t1", "completed", "a\nb\n", 0))},
		want: []string{
			termCallMsg("t1"),
			upd("t1", `"_meta":{"terminal_output_delta":{"terminal_id":"t1","data":"a\n"}}`),
			upd("t1", `"_meta":{"terminal_output_delta":{"terminal_id":"t1","data":"b\n"}}`),
			codexEnd("t1", "completed", "a\nb\n", 0),
		},
	}, {
		name:   "no initialize seen: nothing is changed",
		client: "",
		steps:  []step{fromAgent(termCallMsg("t1")), fromAgent(out("t1", "a\n")), fromAgent(upd("t1", `"status":"completed","rawOutput":`+raw("a\nb\n")))},
		want:   []string{termCallMsg("t1"), out("t1", "a\n"), upd("t1", `"status":"completed","rawOutput":`+raw("a\nb\n"))},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h *harness
			if c.client == "" {
				h = newBareHarness(t, filters.NewChain(nil, &TerminalOutput{}))
			} else {
				h = newHarness(t, c.client, codexAgent, &TerminalOutput{})
			}
			h.run(c.steps...)
			assert.Equal(t, c.want, h.take())
		})
	}
}

// TestTerminalOutputUntouched checks that messages the filter does not
// change leave as the very bytes that came in, for either kind of client.
func TestTerminalOutputUntouched(t *testing.T) {
	msgs := []string{
		chunk,
		`{"jsonrpc":"2.0","id":5,"result":{"x":[1,2,{"y":null}]}}`,
		update(`"sessionUpdate":"tool_call","toolCallId":"e1","kind":"edit","title":"Edit /a","content":[{"type":"diff","path":"/a","oldText":null,"newText":"x"}],"locations":[{"path":"/a"}]`),
		update(`"sessionUpdate":"tool_call","toolCallId":"r1","kind":"read","content":[{"type":"content","content":{"type":"text","text":"` + "```" + `rs\nfn main(){}\n` + "```" + `\n"}}]`),
		update(`"sessionUpdate":"tool_call_update","toolCallId":"x1","kind":"fetch","content":[{"type":"unknown_kind","z":[]}],"_meta":{"other":1}`),
		update(`"sessionUpdate":"tool_call_update","toolCallId":"x2","status":"completed","kind":"think","rawOutput":"` + "\\u003cpersisted-output>" + `"`),
		update(`"sessionUpdate":"future_update","toolCallId":"x3","_meta":{"terminal_output":{"terminal_id":"x3","data":"not a tool update"}}`),
		`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"p1","content":[{"type":"content","content":{"type":"text","text":"rm -rf"}}]},"options":[]}}`,
		`not json at all`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"t","_meta":{"terminal_output":{"data":1`,
		`[{"jsonrpc":"2.0","method":"session/update"}]`,
		``,
	}
	for _, client := range []string{plainClient, zedClient} {
		for _, f := range []func() filters.Filter{
			func() filters.Filter { return &TerminalOutput{} },
			func() filters.Filter { return &Deltas{} },
			func() filters.Filter { return &PersistedOutput{Expand: true} },
		} {
			h := newHarness(t, client, codexAgent, f())
			for _, msg := range msgs {
				h.agent(msg)
				require.Len(t, h.out, 1, "%s: %s", f().Name(), msg)
				assert.Equal(t, msg, h.out[0], "%s", f().Name())
				assert.True(t, h.orig[0], "%s: forwarded as the original bytes: %s", f().Name(), msg)
				h.take()
			}
			assert.Empty(t, h.errs)
		}
	}
}

// FuzzTerminalOutput streams output in chunks (cut by cuts, with gaps of
// milliseconds between them) through the translation, ending with a
// rawOutput that is the output, more than it, or absent. The client
// without the extension must see every update show a prefix of the final
// text, growing, and end with all of it; a client with it must get data
// that concatenates to the final text.
func FuzzTerminalOutput(f *testing.F) {
	for _, s := range []struct {
		output string
		cuts   []byte
		gaps   []byte
		flags  uint8
	}{
		{"a\nb\nc\nd\n", []byte{2, 2, 2}, []byte{10, 40, 70}, 0},
		{"a\nb\nc\n", []byte{2}, nil, 1},
		{"x\r\n\ty\u00e9\U0001F600\n", []byte{1, 3, 1, 4}, []byte{200}, 2},
		{"l1\nl2", []byte{5}, []byte{0}, 4},
		{"", nil, nil, 1},
		{"l1\nl2\nl3 is a longer line\nl4\nl5\n", []byte{3, 3, 3, 3, 3, 3, 3}, []byte{150}, 8 | 16},
		{"a\nb\n", []byte{2}, nil, 32 | 16 | 2},
	} {
		f.Add(s.output, s.cuts, s.gaps, s.flags)
	}
	f.Fuzz(func(t *testing.T, output string, cuts, gaps []byte, flags uint8) {
		if !utf8.ValidString(output) || len(cuts) > 500 {
			return
		}
		final := output
		raw := ""
		switch flags % 3 {
		case 1:
			raw = output
		case 2:
			final = output + "more\n"
			raw = final
		}
		client := plainClient
		switch {
		case flags&32 != 0:
			client = deltaClient
		case flags&4 != 0:
			client = zedClient
		}
		tail := 0 // the default live tail
		if flags&8 != 0 {
			tail = 32
		}
		stream := out // how the agent streams
		if flags&16 != 0 {
			stream = outDelta
		}
		h := newHarness(t, client, codexAgent, &TerminalOutput{LiveTailBytes: tail})
		h.agent(termCallMsg("t1"))
		pos := 0
		for i := 0; pos < len(output); i++ {
			n := len(output)
			if i < len(cuts) {
				n = pos + 1 + int(cuts[i]%64)
				for n < len(output) && !utf8.RuneStart(output[n]) {
					n++
				}
				n = min(n, len(output))
			}
			h.agent(stream("t1", output[pos:n]))
			pos = n
			if len(gaps) > 0 {
				h.advance(time.Duration(gaps[i%len(gaps)]) * time.Millisecond)
			}
		}
		if raw != "" {
			h.agent(codexEnd("t1", "completed", raw, 0))
		} else {
			h.agent(upd("t1", `"status":"completed","_meta":{"terminal_exit":{"terminal_id":"t1","exit_code":0,"signal":null}}`))
		}
		lines := h.take()
		require.Empty(t, h.errs, "filter failed")
		if client != plainClient {
			sameText(t, final, seen(t, lines)["t1"])
			return
		}
		shownSoFar := ""
		for _, l := range lines {
			v, ok := seen(t, []string{l})["t1"]
			if !ok || !strings.Contains(l, `"content"`) {
				continue
			}
			require.NotContains(t, l, "terminal", "a terminal item or key reached the client")
			if v == "" {
				continue
			}
			body := strings.TrimSuffix(strings.TrimPrefix(v, "```sh\n"), "\n```\n")
			if m := tailHead.FindStringSubmatch(body); m != nil && !strings.Contains(l, `"completed"`) {
				rest := body[len(m[0]):]
				require.True(t, len(rest) <= max(tail, 1) && strings.Contains(final, rest),
					"live tail %q is not the end of a part of %q within %d bytes", rest, final, tail)
				continue
			}
			require.True(t, strings.HasPrefix(strings.TrimRight(final, "\n"), body) && len(body) >= len(shownSoFar),
				"update shows %q after %q; final output %q", body, shownSoFar, final)
			shownSoFar = body
		}
		want := ""
		if final != "" {
			want = shFence(final)
		}
		sameText(t, want, seen(t, lines)["t1"])
	})
}

func TestTerminalOutputKeepsAtMostMaxBytesPerCall(t *testing.T) {
	output := numberedLines(2000) // 19 KB
	h := newHarness(t, plainClient, codexAgent, &TerminalOutput{MaxBytes: 1000})
	h.agent(termCallMsg("t1"))
	for i := 0; i < len(output); i += 100 {
		h.agent(out("t1", output[i:min(i+100, len(output))]))
		h.advance(time.Second)
	}
	live := seen(t, h.take())["t1"]
	assert.Contains(t, live, output[:900], "what fits is shown")
	assert.NotContains(t, live, output[1100:1200], "what does not fit is not kept")
	assert.Contains(t, live, "more bytes of output are not shown (over --max-output-bytes)")

	h.agent(codexEnd("t1", "completed", output, 0))
	final := h.take()
	require.Len(t, final, 1)
	sameText(t, shFence(output), seen(t, final)["t1"])
}
