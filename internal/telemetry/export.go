package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Settings say where spans go and what they hold.
type Settings struct {
	// Endpoint is --otel-endpoint: the collector's base URL, as
	// OTEL_EXPORTER_OTLP_ENDPOINT would be ("" : the OTEL_* variables say).
	Endpoint string
	// Content puts the user's text into spans (--otel-content): prompts,
	// tool call titles and inputs, command lines. Off: none (README).
	Content bool
	// Version is the proxy's version, the resource's service.version.
	Version string
	Log     *slog.Logger // the exporter's errors, rate-limited; nil: none
	// Getenv reads the OTEL_* variables the proxy itself reads (nil:
	// os.Getenv through the SDK). The SDK reads the rest itself.
	Getenv func(string) string
}

// Wanted reports whether spans are to be exported: --otel-endpoint, or an
// OTLP endpoint in the environment, and the SDK not disabled
// (OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none).
func Wanted(endpoint string, getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(getenv("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return endpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// protocol is the OTLP protocol the variables ask for: grpc, or
// http/protobuf, the spec's default. http/json, which the Go SDK does not
// speak, is logged and sent as http/protobuf.
func protocol(getenv func(string) string, log *slog.Logger) string {
	p := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if p == "" {
		p = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch p {
	case "grpc":
		return "grpc"
	case "", "http/protobuf":
	default:
		log.Warn("otel: OTLP protocol not supported; sending http/protobuf", "protocol", p)
	}
	return "http/protobuf"
}

// newExporter is the OTLP span exporter the settings and variables ask for.
// The SDK reads the variables (endpoint, headers, timeout, TLS,
// compression); --otel-endpoint, when given, is the endpoint.
func newExporter(ctx context.Context, s Settings, getenv func(string) string) (sdktrace.SpanExporter, error) {
	if protocol(getenv, s.Log) == "grpc" {
		var opts []otlptracegrpc.Option
		if s.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(s.Endpoint))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	if s.Endpoint != "" {
		// As OTEL_EXPORTER_OTLP_ENDPOINT: a base URL, to which the
		// signal's path is added.
		opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimSuffix(s.Endpoint, "/")+"/v1/traces"))
	}
	return otlptracehttp.New(ctx, opts...)
}

// Provider is the SDK's tracer provider, exporting in batches.
type Provider struct {
	*sdktrace.TracerProvider
	ids     *chosenIDs
	roots   *unsampledRoots
	sampler sdktrace.Sampler // the provider's, which the Context filter asks too
	// traceContext: OTEL_PROPAGATORS has W3C trace context read and passed
	// on (see traceContextPropagated).
	traceContext bool
}

// NewProvider starts the SDK: the exporter, a batch span processor (the
// OTEL_BSP_* variables size it; a full queue drops spans rather than
// wait), the sampler (OTEL_TRACES_SAMPLER), the propagators
// (OTEL_PROPAGATORS), the resource (service.name acp-proxy unless OTEL_SERVICE_NAME or
// OTEL_RESOURCE_ATTRIBUTES say otherwise), and the exporter's errors
// logged at most once a minute.
func NewProvider(ctx context.Context, s Settings) (*Provider, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = osGetenv
	}
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	exp, err := newExporter(ctx, s, getenv)
	if err != nil {
		return nil, fmt.Errorf("otel: exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "acp-proxy"), attribute.String("service.version", s.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		s.Log.Warn("otel: resource", "err", err)
	}
	otel.SetErrorHandler(logEvery(s.Log, time.Minute))
	return newProvider(getenv, s.Log, sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// newProvider is a provider of the options given (the exporter, the
// resource), with the proxy's ID generator, sampler and propagators.
func newProvider(getenv func(string) string, log *slog.Logger, opts ...sdktrace.TracerProviderOption) *Provider {
	ids := newChosenIDs()
	sampler := samplerFrom(getenv, log)
	tp := sdktrace.NewTracerProvider(append(opts, sdktrace.WithIDGenerator(ids), sdktrace.WithSampler(sampler))...)
	return &Provider{TracerProvider: tp, ids: ids, roots: &unsampledRoots{}, sampler: sampler, traceContext: traceContextPropagated(getenv, log)}
}

// Close exports what is left, waiting at most wait: a collector that does
// not answer costs the proxy's exit that much, and a log line.
func (p *Provider) Close(wait time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil && log != nil {
		log.Warn("otel: spans not all exported at exit", "err", err)
	}
}

// logEvery is an error handler that logs the SDK's errors (an unreachable
// collector: one per failed batch) at most once per interval, saying how
// many it left out.
func logEvery(log *slog.Logger, interval time.Duration) otel.ErrorHandler {
	var mu sync.Mutex
	var last time.Time
	var skipped int
	return otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if !last.IsZero() && time.Since(last) < interval {
			skipped++
			return
		}
		log.Warn("otel: export failed; spans are dropped, the relay goes on", "err", err, "errorsNotLogged", skipped)
		last, skipped = time.Now(), 0
	})
}
