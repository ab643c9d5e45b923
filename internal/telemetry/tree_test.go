package telemetry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/acp-proxy/acp-proxy/acp"
)

// memProvider is a provider whose spans are kept in memory as they end,
// with the OTEL_* variables env gives.
func memProvider(env map[string]string) (*Provider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	return newProvider(func(k string) string { return env[k] }, nil, sdktrace.WithSyncer(exp)), exp
}

// generated is a session the generator made: its steps, and the trace
// contexts the client sent that parse (trace-span).
type generated struct {
	steps   []step
	clients map[string]bool
}

// gen makes random sessions: traceparents valid and not, sampled and not,
// on initialize, session/new and prompts; sessions that fail to open,
// prompts that end, fail, are cancelled or never answered; tool calls that
// complete, fail or never end, with permission requests; sessions closed.
type gen struct {
	r   *rand.Rand
	g   generated
	at  time.Duration
	ids int
}

func (g *gen) add(dir acp.Direction, format string, args ...any) {
	g.at += time.Duration(1+g.r.IntN(50)) * time.Millisecond
	g.g.steps = append(g.g.steps, step{at: g.at, dir: dir, line: fmt.Sprintf(format, args...)})
}

func (g *gen) id() int { g.ids++; return g.ids }

func hexOf(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}

// meta is a params member `,"_meta":{"traceparent":…}`, or none.
func (g *gen) meta() string {
	tr, sp := hexOf(g.r, 32), hexOf(g.r, 16)
	var tp string
	switch g.r.IntN(7) {
	case 0, 1, 2:
		return ""
	case 3:
		tp = "00-" + tr + "-" + sp + "-01"
		g.g.clients[tr+"-"+sp] = true
	case 4:
		tp = "00-" + tr + "-" + sp + "-00"
		g.g.clients[tr+"-"+sp] = true
	case 5:
		tp = []string{"00-" + strings.Repeat("0", 32) + "-" + sp + "-01", "00-" + tr + "-" + strings.Repeat("0", 16) + "-01",
			"ff-" + tr + "-" + sp + "-01", "00-" + strings.ToUpper(tr) + "-" + sp + "-01", "not a traceparent", "00-" + tr + "-" + sp}[g.r.IntN(6)]
	default:
		tp = "00-" + tr + "-" + sp + "-01"
		g.g.clients[tr+"-"+sp] = true
		return `,"_meta":{"traceparent":"` + tp + `","tracestate":"k=v","baggage":"b=1"}`
	}
	return `,"_meta":{"traceparent":"` + tp + `"}`
}

func generate(r *rand.Rand) generated {
	g := &gen{r: r, g: generated{clients: map[string]bool{}}}
	g.add(c2a, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1%s}}`, g.meta())
	g.add(a2c, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"codex-acp","version":"0.16.0"}}}`)
	for s := range 1 + r.IntN(3) {
		id := g.id()
		g.add(c2a, `{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"/p","mcpServers":[]%s}}`, id, g.meta())
		if r.IntN(8) == 0 {
			g.add(a2c, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"no"}}`, id)
			continue
		}
		sid := fmt.Sprintf("s%d", s)
		g.add(a2c, `{"jsonrpc":"2.0","id":%d,"result":{"sessionId":"%s"}}`, id, sid)
		for range 1 + r.IntN(3) {
			g.prompt(sid)
		}
		if r.IntN(4) == 0 {
			id := g.id()
			g.add(c2a, `{"jsonrpc":"2.0","id":%d,"method":"session/close","params":{"sessionId":"%s"}}`, id, sid)
			g.add(a2c, `{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
		}
	}
	return g.g
}

func (g *gen) prompt(sid string) {
	id := g.id()
	g.add(c2a, `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"%s","prompt":[{"type":"text","text":"hi"}]%s}}`, id, sid, g.meta())
	for range g.r.IntN(4) {
		call := fmt.Sprintf("c%d", g.id())
		g.add(a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"tool_call","toolCallId":"%s","title":"ls -la /home/u","kind":"execute","status":"pending","rawInput":{"command":"ls -la /home/u"}}}}`, sid, call)
		if g.r.IntN(2) == 0 {
			pid := g.id()
			g.add(a2c, `{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"%s","toolCall":{"toolCallId":"%s"},"options":[{"optionId":"a","name":"Allow","kind":"allow_once"}]}}`, pid, sid, call)
			g.add(c2a, `{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":"a"}}}`, pid)
		}
		g.add(a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`, sid)
		switch g.r.IntN(3) {
		case 0:
			g.add(a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"tool_call_update","toolCallId":"%s","status":"completed","rawOutput":{"exit_code":0}}}}`, sid, call)
		case 1:
			g.add(a2c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"tool_call_update","toolCallId":"%s","status":"failed","rawOutput":{"exit_code":3}}}}`, sid, call)
		}
	}
	switch g.r.IntN(5) {
	case 0:
		g.add(c2a, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"%s"}}`, sid)
		g.add(a2c, `{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"cancelled"}}`, id)
	case 1:
		g.add(a2c, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"boom"}}`, id)
	case 2: // never answered
	default:
		g.add(a2c, `{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)
	}
}

// The span tree's invariants hold for every way context arrives, over
// generated sessions: each span's ID is unique; each parent is a span the
// proxy exported, in the same trace, or a context the client sent; no span
// is its own ancestor; every traceparent the agent receives either is the
// client's, untouched, or names a span the proxy exported, flagged sampled;
// under always_off nothing is exported and every line passes as it came.
func TestSpanTreeInvariants(t *testing.T) {
	samplers := []map[string]string{
		nil,
		{"OTEL_TRACES_SAMPLER": "always_off"},
		{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0"},
		{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"},
		{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"},
		{"OTEL_TRACES_SAMPLER": "always_on"},
		{"OTEL_PROPAGATORS": "none"},
	}
	for seed := range uint64(1000) {
		r := rand.New(rand.NewPCG(seed, 31))
		env := samplers[r.IntN(len(samplers))]
		propagate := r.IntN(2) == 0
		g := generate(r)
		t.Run(fmt.Sprintf("seed=%d/env=%v/propagate=%v", seed, env, propagate), func(t *testing.T) {
			p, exp := memProvider(env)
			ctxFilter := p.Context()
			ctxFilter.Add = propagate
			wrote := playThrough(t, p, ctxFilter, false, g.steps)
			require.NoError(t, p.ForceFlush(context.Background())) // Shutdown would empty the exporter
			checkTree(t, exp.GetSpans(), g, wrote)
			if env["OTEL_TRACES_SAMPLER"] == "always_off" || env["OTEL_PROPAGATORS"] == "none" {
				for i, s := range g.steps {
					if s.line != "" {
						assert.Equal(t, []string{s.line}, wrote[i], "passes as it came")
					}
				}
			}
			if env["OTEL_TRACES_SAMPLER"] == "always_off" {
				assert.Empty(t, exp.GetSpans())
			}
			if propagate && env["OTEL_PROPAGATORS"] != "none" {
				checkRootsAgree(t, exp.GetSpans(), g, wrote)
			}
		})
	}
}

func checkTree(t *testing.T, spans tracetest.SpanStubs, g generated, wrote [][]string) {
	t.Helper()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		_, dup := byID[s.SpanContext.SpanID()]
		require.False(t, dup, "span ID %s of %s is not unique", s.SpanContext.SpanID(), s.Name)
		byID[s.SpanContext.SpanID()] = s
	}
	for _, s := range spans {
		if !s.Parent.IsValid() {
			continue
		}
		if p, ok := byID[s.Parent.SpanID()]; ok {
			assert.Equal(t, s.SpanContext.TraceID(), p.SpanContext.TraceID(), "%s is in its parent %s's trace", s.Name, p.Name)
		} else {
			assert.True(t, g.clients[s.Parent.TraceID().String()+"-"+s.Parent.SpanID().String()],
				"the parent of %s is a span exported or the client's", s.Name)
		}
		seen := map[trace.SpanID]bool{}
		for cur, ok := s, true; ok && cur.Parent.IsValid(); cur, ok = byID[cur.Parent.SpanID()] {
			require.False(t, seen[cur.SpanContext.SpanID()], "%s is its own ancestor", s.Name)
			seen[cur.SpanContext.SpanID()] = true
		}
	}
	for i, s := range g.steps {
		if s.dir != c2a || s.line == "" || len(wrote[i]) != 1 {
			continue
		}
		in, out := remote(acp.NewMessage(c2a, []byte(s.line), timeZero).Params()), remote(acp.NewMessage(c2a, []byte(wrote[i][0]), timeZero).Params())
		if !out.IsValid() || out.Equal(in) && g.clients[in.TraceID().String()+"-"+in.SpanID().String()] {
			continue
		}
		sp, ok := byID[out.SpanID()]
		if assert.True(t, ok, "the agent's parent %s is a span the proxy exported: %s", out.SpanID(), wrote[i][0]) {
			assert.Equal(t, out.TraceID(), sp.SpanContext.TraceID())
			assert.True(t, out.IsSampled(), "flagged sampled: it is")
		}
	}
}

// The three ways context arrives that the issue found sharing span IDs:
// a traceparent on the prompt; on initialize and session/new; none, with
// --otel-propagate. Every span has an ID of its own, and its parent is a
// span exported or the client's.
func TestSpanIDsAreUnique(t *testing.T) {
	withNew := append([]step(nil), aSession...)
	withNew[2].line = `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[],"_meta":{"traceparent":"00-` + promptTrace + `-` + promptParent + `-01"}}}`
	withNew[4].line = strings.Replace(withNew[4].line, `,"_meta":{"traceparent":"00-`+promptTrace+`-`+promptParent+`-01"}`, "", 1)
	bare := make([]step, len(aSession))
	for i, s := range aSession {
		bare[i] = s
		if s.line != "" {
			bare[i].line = strings.NewReplacer(`,"_meta":{"traceparent":"00-`+clientTrace+`-`+clientSpan+`-01","tracestate":"vendor=1"}`, "",
				`,"_meta":{"traceparent":"00-`+promptTrace+`-`+promptParent+`-01"}`, "").Replace(s.line)
		}
	}
	clients := map[string]bool{clientTrace + "-" + clientSpan: true, promptTrace + "-" + promptParent: true}
	for _, tc := range []struct {
		says      string
		steps     []step
		propagate bool
	}{
		{"traceparent on initialize and session/prompt", aSession, false},
		{"traceparent on initialize and session/new", withNew, false},
		{"none, with --otel-propagate", bare, true},
	} {
		t.Run(tc.says, func(t *testing.T) {
			p, exp := memProvider(nil)
			ctxFilter := p.Context()
			ctxFilter.Add = tc.propagate
			wrote := playThrough(t, p, ctxFilter, false, tc.steps)
			require.NoError(t, p.ForceFlush(context.Background()))
			require.Len(t, exp.GetSpans(), 5)
			checkTree(t, exp.GetSpans(), generated{steps: tc.steps, clients: clients}, wrote)
		})
	}
}

// checkRootsAgree checks, with --otel-propagate, that the proxy's span of
// initialize, of each session/new and of each prompt is exported exactly
// when the agent was given it: the filter and the tap sample alike.
func checkRootsAgree(t *testing.T, spans tracetest.SpanStubs, g generated, wrote [][]string) {
	t.Helper()
	given := map[string]int{}
	for i, s := range g.steps {
		m := acp.NewMessage(s.dir, []byte(s.line), timeZero)
		if s.dir != c2a || !m.IsRequest() || len(wrote[i]) != 1 {
			continue
		}
		in, out := remote(m.Params()), remote(acp.NewMessage(c2a, []byte(wrote[i][0]), timeZero).Params())
		if out.IsValid() && !out.Equal(in) {
			given[m.Method()]++
		}
	}
	exported := map[string]int{}
	for _, s := range spans {
		exported[strings.Fields(s.Name)[0]]++
	}
	assert.Equal(t, given["initialize"], exported["acp.connection"], "the connection's span")
	assert.Equal(t, given["session/new"], exported["acp.session"], "the sessions' spans")
	assert.Equal(t, given["session/prompt"], exported["invoke_agent"], "the turns' spans")
}
