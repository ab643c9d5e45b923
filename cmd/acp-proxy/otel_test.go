package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/otlptest"
)

// The binary with --otel-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT) exports
// the connection's span to a collector, and passes the client's trace
// context on with the proxy's span as the parent: the echo agent sends
// back what it received. A request without trace context, and everything
// without export, passes byte for byte.
func TestOtelExportFromTheBinary(t *testing.T) {
	const (
		clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		clientSpan  = "00f067aa0ba902b7"
	)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"_meta":{"traceparent":"00-` + clientTrace + `-` + clientSpan + `-01","baggage":"k=v"}}}`
	newSession := `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`
	in := initialize + "\n" + newSession + "\n"
	for _, how := range []string{"flag", "flag host:port", "flag traces URL", "variable", "off"} {
		t.Run(how, func(t *testing.T) {
			r := otlptest.New(t)
			args := []string{"--", fakeAgent(t), "--echo"}
			switch how {
			case "flag":
				args = append([]string{"--otel-endpoint", r.URL}, args...)
			case "flag host:port":
				args = append([]string{"--otel-endpoint", strings.TrimPrefix(r.URL, "http://")}, args...)
			case "flag traces URL":
				args = append([]string{"--otel-endpoint", r.URL + "/v1/traces"}, args...)
			case "variable":
				t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL)
			}
			out, stderr, code := runProxy(t, []byte(in), args...)
			require.Equal(t, 0, code, "stderr: %s", stderr)
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			require.Len(t, lines, 2)
			assert.Equal(t, newSession, lines[1], "no trace context: byte for byte")
			if how == "off" {
				assert.Equal(t, in, string(out))
				assert.Empty(t, r.Spans(), "nothing exported")
				return
			}
			conn := r.ByName()["acp.connection"]
			require.Len(t, conn, 1, "the proxy exported its connection's span before it exited")
			assert.Equal(t, clientTrace, otlptest.HexID(conn[0].TraceId))
			assert.Equal(t, clientSpan, otlptest.HexID(conn[0].ParentSpanId))
			want := strings.Replace(initialize, clientSpan, otlptest.HexID(conn[0].SpanId), 1)
			assert.Equal(t, want, lines[0], "the agent's parent is the proxy's span; baggage as it was")
		})
	}
}

// --otel-endpoint takes the forms people type and stores the collector's base URL, to which the
// exporter adds /v1/traces; anything else is refused.
func TestOtelEndpointForms(t *testing.T) {
	for _, c := range []struct{ typed, base string }{ // base "" : refused
		{"http://localhost:4318", "http://localhost:4318"},
		{"http://localhost:4318/", "http://localhost:4318"},
		{"localhost:4318", "http://localhost:4318"},
		{"127.0.0.1:4317", "http://127.0.0.1:4317"},
		{"[::1]:4318", "http://[::1]:4318"},
		{"http://localhost:4318/v1/traces", "http://localhost:4318"},
		{"https://otel.example.com/otlp/v1/traces/", "https://otel.example.com/otlp"},
		{"https://otel.example.com", "https://otel.example.com"},
		{"https://otel.example.com/otlp", "https://otel.example.com/otlp"},
		{"localhost", ""},
		{":4318", ""},
		{"ftp://otel.example.com", ""},
		{"http://", ""},
		{"http://user:secret@otel.example.com", ""},
		{"localhost:4318?x=1", ""},
		{"localhost:port", ""},
	} {
		base, err := otelBaseURL(c.typed)
		if c.base == "" {
			assert.Error(t, err, c.typed)
			continue
		}
		require.NoError(t, err, c.typed)
		assert.Equal(t, c.base, base, c.typed)
	}
	_, stderr, code := runProxy(t, nil, "--otel-endpoint", "ftp://otel.example.com", "--", "cat")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(string(stderr), "\n"), "one line: %s", stderr)
	assert.Contains(t, string(stderr), "not a collector's address")
}

// A collector that takes the connection and never answers costs the
// session nothing: every line passes, the proxy exits as the agent does
// (waiting at most otelExitWait for the last spans), and the log says the
// spans were not all exported.
func TestOtelHangingCollector(t *testing.T) {
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}` + "\n")
	for i := range 2000 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%d"}}}}`+"\n", i)
	}
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			logFile := filepath.Join(t.TempDir(), "proxy.log")
			out, stderr, code := runProxy(t, []byte(in.String()), "--otel-endpoint", otlptest.Hanging(t), "--log-file", logFile, "--", fakeAgent(t), "--echo")
			require.Equal(t, 0, code, "stderr: %s", stderr)
			assert.Equal(t, strings.Count(in.String(), "\n"), strings.Count(string(out), "\n"), "every line passed")
			logged, err := os.ReadFile(logFile)
			require.NoError(t, err)
			assert.Contains(t, string(logged), "spans not all exported at exit")
		})
	}
}
