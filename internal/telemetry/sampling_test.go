package telemetry

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/capabilities"
	"github.com/acp-proxy/acp-proxy/filters"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// withPrompt is aSession with the prompt's traceparent as given.
func withPrompt(traceparent string) []step {
	steps := append([]step(nil), aSession...)
	steps[4].line = strings.Replace(steps[4].line, "00-"+promptTrace+"-"+promptParent+"-01", traceparent, 1)
	return steps
}

// A prompt the proxy does not sample (the client's "not sampled", a
// sampler that samples nothing) ends its turn like any other: the tap goes
// on, and the agent gets the client's context as it came, not a parent
// that is never exported.
func TestUnsampledPrompts(t *testing.T) {
	unsampled := "00-" + promptTrace + "-" + promptParent + "-00"
	cases := []struct {
		says        string
		env         map[string]string
		traceparent string
		spans       bool // the proxy exports spans (those it samples)
	}{
		{"the client's traceparent says not sampled", nil, unsampled, true},
		{"always_off", map[string]string{"OTEL_TRACES_SAMPLER": "always_off"}, "00-" + promptTrace + "-" + promptParent + "-01", false},
		// The connection is exported: initialize's traceparent says sampled.
		{"parentbased_traceidratio 0", map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0"}, unsampled, true},
	}
	for _, tc := range cases {
		t.Run(tc.says, func(t *testing.T) {
			p, exp := memProvider(tc.env)
			steps := withPrompt(tc.traceparent)
			wrote := play(t, p, false, steps)
			require.NoError(t, p.ForceFlush(context.Background()))
			assert.Equal(t, []string{steps[4].line}, wrote[4], "the prompt reaches the agent as it came")
			var names []string
			for _, s := range exp.GetSpans() {
				names = append(names, s.Name)
				assert.NotEqual(t, promptTrace, s.SpanContext.TraceID().String(), "nothing of the unsampled prompt is exported")
			}
			if tc.spans {
				assert.Contains(t, names, "acp.connection", "the rest of the connection is")
			} else {
				assert.Empty(t, names)
			}
		})
	}
}

// OTEL_PROPAGATORS=none: the proxy neither joins the client's trace nor
// changes its traceparent, and --otel-propagate adds none.
func TestPropagatorsNone(t *testing.T) {
	for _, add := range []bool{false, true} {
		p, exp := memProvider(map[string]string{"OTEL_PROPAGATORS": "none"})
		ctxFilter := p.Context()
		ctxFilter.Add = add
		wrote := playThrough(t, p, ctxFilter, false, aSession)
		require.NoError(t, p.ForceFlush(context.Background()))
		for i, s := range aSession {
			if s.line != "" {
				assert.Equal(t, []string{s.line}, wrote[i], "add=%v: passes as it came", add)
			}
		}
		require.NotEmpty(t, exp.GetSpans())
		for _, s := range exp.GetSpans() {
			assert.False(t, s.Parent.IsValid() && s.Parent.IsRemote(), "%s joined the client's trace", s.Name)
		}
	}
	// Another filter changed the request: its traceparent is still the
	// client's, not one the proxy chose for its span.
	p, exp := memProvider(map[string]string{"OTEL_PROPAGATORS": "none"})
	conn := p.NewConn(ConnInfo{})
	line := []byte(aSession[0].line)
	conn.handle(event{kind: passed, dir: c2a, t: time.Now(), line: line, out: [][]byte{line}, outSize: len(line) + 1})
	conn.finish(0)
	require.NoError(t, p.ForceFlush(context.Background()))
	require.Len(t, exp.GetSpans(), 1)
	assert.NotEqual(t, clientTrace, exp.GetSpans()[0].SpanContext.TraceID().String())
	assert.NotEqual(t, clientSpan, exp.GetSpans()[0].SpanContext.SpanID().String())
}

func TestPropagatorsVariable(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	for v, want := range map[string]bool{"": true, "tracecontext,baggage": true, "baggage,tracecontext": true, "tracecontext": true,
		"none": false, "baggage": false, "b3": false, " TraceContext , b3 ": true} {
		assert.Equal(t, want, traceContextPropagated(func(string) string { return v }, log), "OTEL_PROPAGATORS=%q", v)
	}
	assert.Contains(t, logged.String(), "propagator=b3")
}

// panicky is a span processor that panics: a stand-in for any fault in
// making spans.
type panicky struct{ sdktrace.SpanProcessor }

func (panicky) OnStart(context.Context, sdktrace.ReadWriteSpan) { panic("injected") }

// A span builder that panics switches itself off with one log line; the
// relay's lines go on through the tap, which takes nothing more.
func TestPanickingSpanBuilderSwitchesItselfOff(t *testing.T) {
	p := newProvider(func(string) string { return "" }, nil, sdktrace.WithSpanProcessor(panicky{sdktrace.NewSimpleSpanProcessor(tracetest.NewInMemoryExporter())}))
	var logged bytes.Buffer
	conn := p.NewConn(ConnInfo{})
	tap := NewTap(conn, slog.New(slog.NewTextHandler(&logged, nil)))
	for _, s := range aSession {
		if s.line != "" {
			tap.Passed(passage(s.dir, s.line))
		}
	}
	<-tap.done // the builder's goroutine ended at the panic
	assert.True(t, tap.off.Load())
	tap.Passed(passage(a2c, aSession[1].line))
	assert.Empty(t, tap.pending, "taken and forgotten")
	require.NoError(t, tap.End(c2a))
	require.NoError(t, tap.End(a2c))
	assert.Equal(t, 1, strings.Count(logged.String(), "the span builder failed and is switched off"), logged.String())
}

func passage(d acp.Direction, line string) *proxy.Passage {
	return &proxy.Passage{Dir: d, Time: time.Now(), Line: []byte(line), EOL: true, Out: []proxy.Sent{{Line: []byte(line), Original: true}}}
}

// The chaos of a span builder that panics, through the relay: every line
// of the session reaches its side, byte for byte, and the tap is off.
func TestRelayGoesOnWhenTheSpanBuilderPanics(t *testing.T) {
	p := newProvider(func(string) string { return "" }, nil, sdktrace.WithSpanProcessor(panicky{sdktrace.NewSimpleSpanProcessor(tracetest.NewInMemoryExporter())}))
	chain := filters.NewChain(capabilities.New(), p.Context())
	tap := NewTap(p.NewConn(ConnInfo{Chain: chain}), nil)
	relay := &proxy.Relay{Chain: chain, Taps: []proxy.Tap{tap}}
	var in [2]strings.Builder
	for _, s := range aSession {
		if s.line != "" {
			in[s.dir].WriteString(s.line + "\n")
		}
	}
	for range 1000 { // past the first batch the builder takes
		in[a2c].WriteString(string(chunkLine(200)))
	}
	var toAgent, toClient bytes.Buffer
	conn := relay.Open(&toAgent, &toClient)
	require.NoError(t, conn.Pump(c2a, strings.NewReader(in[c2a].String())))
	require.NoError(t, conn.Pump(a2c, strings.NewReader(in[a2c].String())))
	<-tap.done
	assert.True(t, tap.off.Load(), "the builder met the panic")
	assert.Equal(t, strings.Count(in[c2a].String(), "\n"), strings.Count(toAgent.String(), "\n"))
	assert.Equal(t, in[a2c].String(), toClient.String())
}
