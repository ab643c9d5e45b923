package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/acp"
	"github.com/acp-proxy/acp-proxy/internal/otlptest"
	"github.com/acp-proxy/acp-proxy/proxy"
)

func TestWanted(t *testing.T) {
	cases := []struct {
		says     string
		endpoint string
		env      map[string]string
		want     bool
	}{
		{"nothing asks: off", "", nil, false},
		{"--otel-endpoint", "http://collector:4318", nil, true},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{"the SDK disabled wins", "http://c:4318", map[string]string{"OTEL_SDK_DISABLED": "true"}, false},
		{"no traces exporter wins", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"a metrics endpoint alone is not for traces", "", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4318"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.says, func(t *testing.T) {
			assert.Equal(t, tc.want, Wanted(tc.endpoint, func(k string) string { return tc.env[k] }))
		})
	}
}

func TestProtocol(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	for env, want := range map[[2]string]string{
		{"", ""}:                           "http/protobuf",
		{"grpc", ""}:                       "grpc",
		{"http/protobuf", "grpc"}:          "grpc", // the traces variable wins
		{"grpc", "http/protobuf"}:          "http/protobuf",
		{"http/json", ""}:                  "http/protobuf",
		{"", "http/json"}:                  "http/protobuf",
		{"something-else", "http/json"}:    "http/protobuf",
		{"http/protobuf", "http/protobuf"}: "http/protobuf",
	} {
		getenv := func(k string) string {
			return map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": env[0], "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": env[1]}[k]
		}
		assert.Equal(t, want, protocol(getenv, log), "OTEL_EXPORTER_OTLP_PROTOCOL=%q OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=%q", env[0], env[1])
	}
	assert.Contains(t, logged.String(), "OTLP protocol not supported; sending http/protobuf")
}

// An unreachable collector costs a log line: the session's messages are
// all taken, and closing gives up after the wait it is given.
func TestUnreachableCollectorIsALogLine(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	p, err := NewProvider(context.Background(), Settings{Endpoint: closedPort(t), Log: log})
	require.NoError(t, err)
	play(t, p, false, aSession)
	p.Close(time.Second, log)
	assert.Contains(t, logged.String(), "otel: ")
	assert.Contains(t, logged.String(), "connection refused")
}

// The tap drops what it has no room for, counts it, says so once in the
// log, and the connection's span says how many messages it left out.
func TestFullQueueDropsAndSaysSo(t *testing.T) {
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
	require.NoError(t, err)
	var logged bytes.Buffer
	tap := NewTap(p.NewConn(ConnInfo{}), slog.New(slog.NewTextHandler(&logged, nil)))
	tap.max = 1000 // bytes
	line := []byte(aSession[6].line)
	for range 100 {
		tap.Passed(&proxy.Passage{Dir: acp.AgentToClient, Time: time.Now(), Line: line, Out: []proxy.Sent{{Line: line, Original: true}}})
	}
	dropped := tap.dropped.Load()
	assert.Positive(t, dropped, "100 lines of %d bytes in a queue of 1000 bytes", len(line))
	require.NoError(t, tap.End(acp.ClientToAgent))
	require.NoError(t, tap.End(acp.AgentToClient))
	p.Close(10*time.Second, nil)
	assert.Equal(t, 1, strings.Count(logged.String(), "messages are left out of the spans"))
	conn := r.ByName()["acp.connection"]
	require.Len(t, conn, 1)
	assert.Equal(t, itoa(int(dropped)), otlptest.Attrs(conn[0].Attributes)["acp.otel.messages_left_out"])
}

// Calls outside any turn are bounded too: past maxCalls, the ended ones are
// exported and forgotten, and then all of them.
func TestCallsOutsideATurnAreBounded(t *testing.T) {
	t.Setenv("OTEL_BSP_MAX_QUEUE_SIZE", "10000") // the SDK's queue would drop some otherwise: 2,048
	r := otlptest.New(t)
	p, err := NewProvider(context.Background(), Settings{Endpoint: r.URL})
	require.NoError(t, err)
	conn := p.NewConn(ConnInfo{})
	start := time.Now()
	for i := range maxCalls + 10 {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":{"sessionUpdate":"tool_call","toolCallId":"c%d","status":"completed"}}}`, i)
		conn.handle(event{kind: passed, dir: acp.AgentToClient, t: start, line: []byte(line), outSize: len(line) + 1})
		require.LessOrEqual(t, len(conn.calls), maxCalls)
	}
	conn.finish(0)
	p.Close(10*time.Second, nil)
	assert.Len(t, r.ByName()["execute_tool"], maxCalls+10, "every call is exported once")
}
