package changes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/internal/chaintest"
	"github.com/acp-proxy/acp-proxy/internal/trace"
)

// callState is what the filter knows of a call, for comparing two filters.
type callState struct {
	Title, Kind                 string
	Execute, Writes, BigContent bool
	Content                     string
	HasContent                  bool
}

func statesOf(f *Filter) map[callKey]callState {
	m := map[callKey]callState{}
	for k, c := range f.calls {
		m[k] = callState{c.title, c.kind, c.execute, c.writes, c.bigContent, string(c.content.Bytes), c.content.Bytes != nil}
	}
	return m
}

// twoReaders is the same session through show-changes that reads an
// update carrying only output from its bytes (output) and through one that
// parses every line.
type twoReaders struct {
	t                *testing.T
	fast, slow       *Filter
	fastC, slowC     *filters.Chain
	outputs, checked int
}

func newTwoReaders(t *testing.T) *twoReaders {
	r := &twoReaders{t: t, fast: &Filter{Replaying: true}, slow: &Filter{Replaying: true, parseAll: true}}
	r.fastC = filters.NewChain(capabilities.New(), r.fast)
	r.slowC = filters.NewChain(capabilities.New(), r.slow)
	return r
}

// line runs one line through both and requires the same lines out and the
// same calls known after it.
func (r *twoReaders) line(d acp.Direction, raw string) {
	r.t.Helper()
	clock := r.fast.clock.Load()
	got := chaintest.Run(r.t, r.fastC, d, raw)
	want := chaintest.Run(r.t, r.slowC, d, raw)
	require.Equal(r.t, want, got, "what left for %s", raw)
	require.Equal(r.t, statesOf(r.slow), statesOf(r.fast), "what the filter knows after %.300s", raw)
	require.Equal(r.t, r.slow.clock.Load(), r.fast.clock.Load())
	r.checked++
	if sid, u, ok := outputOnly([]byte(raw)); ok && d == acp.AgentToClient && r.fast.clock.Load() != clock && r.fast.calls[callKey{sid, u.ID}] != nil {
		r.outputs++
	}
}

func TestAnUpdateOfOutputReadFromItsBytesIsReadAsParsed(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/traces/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	outputs := 0
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			r := newTwoReaders(t)
			tr := trace.NewReader(f)
			for {
				rec, err := tr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				if rec.Line != nil {
					r.line(rec.Dir, string(rec.Line))
				}
			}
			outputs += r.outputs
		})
	}
	assert.Positive(t, outputs, "no recorded update carried only output")
}

func TestUpdatesThatAreNotOnlyOutputAreParsed(t *testing.T) {
	r := newTwoReaders(t)
	r.line(acp.ClientToAgent, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	r.line(acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
	r.line(acp.AgentToClient, started("c1", "make"))
	for _, u := range []string{
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"content","content":{"type":"text","text":"one"}}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"diff","path":"/w/a","newText":"x"}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"content","content":{"type":"text","text":"two"}}],"title":"make all"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[],"kind":"edit"}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c9","content":[{"type":"content","content":{"type":"text","text":"not followed"}}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":null}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","_meta":{"terminal_output":{"data":"x"}}}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"c1","content":[{"type":"content","content":{"type":"text","text":"three"}}],"status":"completed"}`,
	} {
		r.line(acp.AgentToClient, update(u))
	}
	r.line(acp.AgentToClient, started("c2", "make"))
	for _, raw := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"tool_call_update","toolCallId":"c2","content":[]}},"x":1}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"tool_call_update","toolCallId":"c2","content":[]}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"tool_call_update","toolCallId":"c2","content":[]}} }`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"tool_call_update","toolCallId":"c2","content":[{"type":"content","content":{"type":"text","text":"four"}}]}}}`,
	} {
		r.line(acp.AgentToClient, raw)
	}
	assert.Equal(t, "[{\"type\":\"content\",\"content\":{\"type\":\"text\",\"text\":\"four\"}}]", string(r.fast.calls[callKey{"S", "c2"}].content.Bytes))
	assert.Equal(t, 4, r.outputs, "the updates that carry only output, of a call followed, read from their bytes")
}

func TestAClientLineOtherThanAPromptIsNotParsed(t *testing.T) {
	f := &Filter{Replaying: true}
	m := filters.NewMessage(acp.ClientToAgent, []byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S"}}`), time.Time{}, capabilities.New())
	require.NoError(t, f.Apply(m, nil))
	assert.False(t, m.Looked())
}

// Of a client's lines, a prompt is read however the client writes it, its
// method first or not; every other line that begins with its method skips
// the chain, as the relay asks (filters.Chain.Skips).
func TestOfAClientsLinesOnlyAPromptIsRead(t *testing.T) {
	for _, prompt := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"S","prompt":[]}}`,
		`{"jsonrpc":"2.0","method":"session/prompt","id":2,"params":{"sessionId":"S","prompt":[]}}`,
	} {
		f := &Filter{}
		c := filters.NewChain(capabilities.New(), f)
		relay := func(d acp.Direction, line string) {
			if !c.Skips(d, []byte(line)) {
				chaintest.Run(t, c, d, line)
			}
		}
		relay(acp.ClientToAgent, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/new","id":1,"params":{"cwd":%q,"mcpServers":[]}}`, t.TempDir()))
		relay(acp.AgentToClient, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"S"}}`)
		cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"S"}}`
		assert.True(t, c.Skips(acp.ClientToAgent, []byte(cancel)), "a cancel skips the chain")
		relay(acp.ClientToAgent, prompt)
		f.rests.mu.Lock()
		rs := f.rests.m["S"]
		f.rests.mu.Unlock()
		assert.NotNil(t, rs, "the prompt was read: the session's rest is taken (%s)", prompt)
		f.Close()
	}
	f := &Filter{}
	assert.False(t, f.SkipsClient([]byte("session/prompt")), "a prompt is read even when the tracker would not")
	assert.True(t, f.SkipsClient([]byte("session/cancel")))
}
