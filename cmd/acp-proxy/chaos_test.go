package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/internal/trace"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// failingTap is an observer with a bug: it is the real tap until its
// at-th Passed (or End, or long line), where it panics.
type failingTap struct {
	proxy.Tap
	name  string
	in    string // "Passed", "Long" or "End"
	calls atomic.Int32
}

func (f *failingTap) fail(call string) {
	if call == f.in && f.calls.Add(1) >= failAt[call] {
		panic("injected into " + f.name + ": " + call)
	}
}

// failAt is the call at which a failingTap fails: in the middle of the
// session, or at its end.
var failAt = map[string]int32{"Passed": 3, "Long": 2, "End": 1}

func (f *failingTap) Passed(p *proxy.Passage) { f.fail("Passed"); f.Tap.Passed(p) }
func (f *failingTap) Long(d acp.Direction) proxy.LongLine {
	f.fail("Long")
	return f.Tap.Long(d)
}
func (f *failingTap) End(d acp.Direction) error { f.fail("End"); return f.Tap.End(d) }

// panickyTraceFile is a trace file that panics when written to.
type panickyTraceFile struct{}

func (panickyTraceFile) Write([]byte) (int, error) { panic("injected: trace file") }
func (panickyTraceFile) Close() error              { return nil }

// The chaos test of the observers: each of the relay's observers as the
// CLI sets them up (--stats, --serve, OpenTelemetry export, --record), one
// at a time and all at once, fails in the middle of a session with a
// panic. The editor's session completes: the agent gets every byte the
// editor sent, the editor every byte the agent wrote back, the agent's
// exit status is the proxy's; the log says what failed, once per observer.
func TestAnObserverThatPanicsNeverHarmsTheSession(t *testing.T) {
	observers := []string{"stats", "live", "otel", "record"}
	cases := [][]string{}
	for _, o := range observers {
		cases = append(cases, []string{o})
	}
	cases = append(cases, observers)
	long := `{"jsonrpc":"2.0","method":"long","params":"` + strings.Repeat("x", 100<<10) + `"}` + "\n"
	in := append(corpus(t), strings.Repeat(long, 3)...) // lines too long to filter
	for _, failing := range cases {
		for _, call := range []string{"Passed", "Long", "End"} {
			t.Run(strings.Join(failing, "+")+"/"+call, func(t *testing.T) {
				var logged bytes.Buffer
				logger := slog.New(slog.NewJSONHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
				relay, done := chaosRelay(t, logger, failing, call)
				var out bytes.Buffer
				status, err := relay.Run(context.Background(), proxy.Agent{Argv: []string{fakeAgent(t), "--echo"}, Grace: time.Minute}, bytes.NewReader(in), &out, nil)
				done()
				require.NoError(t, err)
				assert.Equal(t, 0, status)
				assert.True(t, bytes.Equal(in, out.Bytes()), "every byte relayed, both ways (%d of %d)", out.Len(), len(in))
				for _, o := range failing {
					assert.Equal(t, 1, strings.Count(logged.String(), chaosLogSays[o]), "the log says once that %s failed", o)
				}
			})
		}
	}
}

// chaosLogSays is what the log says of each observer that failed.
var chaosLogSays = map[string]string{
	"stats":  `"panic":"injected into stats: `,
	"live":   `"panic":"injected into live: `,
	"otel":   `"panic":"injected into otel: `,
	"record": "writing the trace file panicked: injected: trace file",
}

// chaosRelay is the CLI's relay with every observer on, --max-filter-line
// small enough that the corpus has long lines; those named in failing
// panic in their call named call (the trace file, in any write). done
// stops what the observers started, as the CLI does at exit.
func chaosRelay(t *testing.T, logger *slog.Logger, failing []string, call string) (relay *proxy.Relay, done func()) {
	fails := map[string]bool{}
	for _, f := range failing {
		fails[f] = true
	}
	wrap := func(name string) {
		if fails[name] {
			last := &relay.Taps[len(relay.Taps)-1]
			*last = &failingTap{Tap: *last, name: name, in: call}
		}
	}
	opts := options{stats: true, maxFilterLine: 256}
	opts.filters.TerminalOutput, opts.filters.Deltas = true, true
	opts.otel.endpoint = otlptest.New(t).URL
	spans := startOtel(&opts, logger, io.Discard)
	require.NotNil(t, spans)
	relay = newRelay(opts, logger)
	spans.attach(relay, []string{"fake-agent"}, nil)
	wrap("otel")
	report := statsTo(relay, opts, logger, io.Discard)
	wrap("stats")
	stopServe, code := serveLive(relay, "127.0.0.1:0", time.Now(), trace.ConnectionInfo{Agent: []string{"fake-agent"}}, logger, io.Discard)
	require.Equal(t, -1, code)
	wrap("live")
	var file io.WriteCloser = nopWriteCloser{io.Discard}
	if fails["record"] {
		file = panickyTraceFile{}
	}
	rec := trace.RecordFile(file, time.Now(), false)
	relay.Taps = append(relay.Taps, rec)
	return relay, func() {
		stopServe()
		_ = rec.Close()
		report()
		spans.close()
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
