package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/acp-proxy/acp-proxy/internal/procgroup"
)

// jaeger is a Jaeger (v1.76.0, the `jaeger` program of
// internal/tools/go.mod) the test started: OTLP in over HTTP and gRPC,
// traces in memory, its query API out.
type jaeger struct {
	otlpHTTP, otlpGRPC string // base URLs, as OTEL_EXPORTER_OTLP_ENDPOINT
	query              string // the query API's base URL
}

// jaegerConfig runs Jaeger's own all-in-one pipeline on the given
// loopback ports, with no other listener: several tests (and other
// programs) may run on the machine at once.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: mem
%s    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
      grpc:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`

// startJaeger starts Jaeger for the test, which stops it. Without a
// jaeger on PATH the test skips, and fails with REQUIRE_JAEGER=1 (CI
// builds it: .ci/run).
func startJaeger(t *testing.T) jaeger {
	t.Helper()
	bin, err := exec.LookPath("jaeger")
	if err != nil {
		require.NotEqual(t, "1", os.Getenv("REQUIRE_JAEGER"), "REQUIRE_JAEGER=1 and no jaeger on PATH (scripts/install-jaeger builds it)")
		t.Skip("no jaeger on PATH: the spans are not checked in Jaeger (scripts/install-jaeger; REQUIRE_JAEGER=1 makes this a failure)")
	}
	ports := freePorts(t, 4)
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	// A Jaeger built from the Go module has no UI pages; JAEGER_UI_ASSETS
	// names a jaeger-ui build (its packages/jaeger-ui/build) to serve, for
	// the README's screenshot.
	ui := ""
	if assets := os.Getenv("JAEGER_UI_ASSETS"); assets != "" {
		ui = fmt.Sprintf("    ui:\n      assets_path: %q\n", assets)
	}
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, ui, ports[0], ports[1], ports[2], ports[3]), 0o644))
	cmd := exec.Command(bin, "--config", cfg)
	log := filepath.Join(t.TempDir(), "jaeger.log")
	out, err := os.Create(log)
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	watch := procgroup.Watch(t, cmd.Process.Pid)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		out.Close()
		watch()
	})
	j := jaeger{
		query:    fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		otlpHTTP: fmt.Sprintf("http://127.0.0.1:%d", ports[2]),
		otlpGRPC: fmt.Sprintf("http://127.0.0.1:%d", ports[3]),
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(j.query + "/api/services")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return j
			}
		}
		if time.Now().After(deadline) {
			logged, _ := os.ReadFile(log)
			t.Fatalf("jaeger did not answer on %s within 30 s: %v\n%s", j.query, err, logged)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freePorts are n loopback ports free a moment ago.
func freePorts(t *testing.T, n int) []int {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// jaegerTrace is a trace as Jaeger's query API (/api/traces) returns it.
type jaegerTrace struct {
	TraceID string       `json:"traceID"`
	Spans   []jaegerSpan `json:"spans"`
}

type jaegerSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	StartTime int64 `json:"startTime"` // µs
	Duration  int64 `json:"duration"`  // µs
	Tags      []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	Logs []struct {
		Fields []struct {
			Key   string `json:"key"`
			Value any    `json:"value"`
		} `json:"fields"`
	} `json:"logs"`
}

// tag is the span's tag key, as text ("" when absent).
func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

// events are the names of the span's events (Jaeger's logs).
func (s jaegerSpan) events() []string {
	var names []string
	for _, l := range s.Logs {
		for _, f := range l.Fields {
			if f.Key == "event" {
				names = append(names, fmt.Sprint(f.Value))
			}
		}
	}
	return names
}

// parent is the span's parent's ID ("" for a root).
func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// traces asks Jaeger for service's traces.
func (j jaeger) traces(t *testing.T, service string) []jaegerTrace {
	t.Helper()
	resp, err := http.Get(j.query + "/api/traces?limit=100&lookback=1h&service=" + service)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Data []jaegerTrace `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return body.Data
}

// spans are all the spans of service's traces once Jaeger holds at least
// want of them (or after 20 s, whatever it holds).
func (j jaeger) spans(t *testing.T, service string, want int) []jaegerSpan {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var all []jaegerSpan
		for _, tr := range j.traces(t, service) {
			all = append(all, tr.Spans...)
		}
		if len(all) >= want || time.Now().After(deadline) {
			return all
		}
		time.Sleep(200 * time.Millisecond)
	}
}
