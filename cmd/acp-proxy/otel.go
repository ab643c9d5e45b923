package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/acp-proxy/acp-proxy/internal/telemetry"
	"github.com/acp-proxy/acp-proxy/proxy"
)

// otelOptions are the flags of OpenTelemetry export.
type otelOptions struct {
	endpoint           string
	content, propagate bool
}

// otelExitWait bounds how long the proxy waits at exit for the last spans
// to reach a collector.
const otelExitWait = 2 * time.Second

func addOtelFlags(fs *pflag.FlagSet, o *otelOptions) {
	fs.Var(endpointValue{&o.endpoint}, "otel-endpoint", "export OpenTelemetry spans over OTLP to this collector: its base URL (http://localhost:4318, as OTEL_EXPORTER_OTLP_ENDPOINT, which also turns export on), host:port, or the traces URL …/v1/traces")
	fs.BoolVar(&o.propagate, "otel-propagate", false, "give a request that carries no W3C trace context (_meta.traceparent) the proxy's, so the agent's spans join the session's trace")
	fs.BoolVar(&o.content, "otel-content", false, "put the user's text into the spans: prompts, tool call titles and inputs, error messages, why an edit was taken back, the agent's command line and the proxy's arguments (also OTEL_ACP_PROXY_CONTENT=true)")
}

// otelExport is the export of one run's spans; nil when export is off.
type otelExport struct {
	provider *telemetry.Provider
	tap      *telemetry.Tap
	content  bool
	log      *slog.Logger
}

// startOtel starts the SDK when --otel-endpoint or the OTEL_* variables ask
// for export, and adds the trace-context filter to the chain the options
// will build. A provider that cannot start is logged, and the proxy runs
// without export.
func startOtel(opts *options, logger *slog.Logger, stderr io.Writer) *otelExport {
	if !telemetry.Wanted(opts.otel.endpoint, os.Getenv) {
		if opts.otel.content || opts.otel.propagate {
			logger.Warn("--otel-content, --otel-propagate: no span is exported (no --otel-endpoint, no OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		return nil
	}
	p, err := telemetry.NewProvider(context.Background(), telemetry.Settings{Endpoint: opts.otel.endpoint, Version: versionString(), Log: logger})
	if err != nil {
		fmt.Fprintf(stderr, "acp-proxy: %v; running without OpenTelemetry export\n", err)
		return nil
	}
	ctxFilter := p.Context()
	ctxFilter.Add = opts.otel.propagate
	opts.filters.Last = append(opts.filters.Last, ctxFilter)
	content := opts.otel.content || os.Getenv("OTEL_ACP_PROXY_CONTENT") == "true"
	return &otelExport{provider: p, content: content, log: logger}
}

// attach makes relay's connection into spans: a tap, and the filters'
// notes as span events.
func (e *otelExport) attach(relay *proxy.Relay, agent, args []string) {
	if e == nil {
		return
	}
	conn := e.provider.NewConn(telemetry.ConnInfo{Agent: agent, Args: args, Chain: relay.Chain, Content: e.content})
	e.tap = telemetry.NewTap(conn, e.log)
	relay.Taps = append(relay.Taps, e.tap)
	if relay.Chain != nil {
		relay.Chain.ListenNotes(e.tap.Note)
	}
}

// close ends the spans and exports what is left, waiting at most
// otelExitWait.
func (e *otelExport) close() {
	if e == nil {
		return
	}
	if e.tap != nil {
		e.tap.Close()
	}
	e.provider.Close(otelExitWait, e.log)
}

// endpointValue is --otel-endpoint, stored as the collector's base URL, to which the exporter
// adds the signal's path (/v1/traces). It takes the forms people type: the base URL, host:port
// (http://host:port, as collectors listen without TLS by default), and the traces URL itself,
// whose path would otherwise be doubled; it refuses anything else with one line.
type endpointValue struct{ p *string }

func (v endpointValue) Set(s string) error {
	base, err := otelBaseURL(s)
	if err != nil {
		return err
	}
	*v.p = base
	return nil
}

func (v endpointValue) String() string { return *v.p }
func (v endpointValue) Type() string   { return "url" }

// otelBaseURL is the collector's base URL endpoint names (see endpointValue).
func otelBaseURL(endpoint string) (string, error) {
	refused := errors.New("not a collector's address: give its URL (http://localhost:4318, https://otel.example.com) or host:port (localhost:4318)")
	raw := strings.TrimSpace(endpoint)
	if raw == "" {
		return "", nil // off, as without the flag
	}
	schemed := strings.Contains(raw, "://")
	if !schemed {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Hostname() == "" ||
		!schemed && u.Port() == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", refused
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1/traces")
	u.RawPath = ""
	return u.String(), nil
}
