package telemetry

import (
	"log/slog"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// samplerFrom is the sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG
// name, as the SDK would read them; the proxy makes it itself because the
// Context filter asks it, on the relay's pump, whether the proxy's span for
// a request will be sampled before the tap makes the span (the same
// sampler, the same trace ID and parent: the same answer). A sampler the
// proxy does not know (jaeger_remote, xray) is logged, and the default
// used: parentbased_always_on.
func samplerFrom(getenv func(string) string, log *slog.Logger) sdktrace.Sampler {
	name := strings.TrimSpace(strings.ToLower(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func() sdktrace.Sampler {
		if arg == "" {
			return sdktrace.TraceIDRatioBased(1)
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			log.Warn("otel: OTEL_TRACES_SAMPLER_ARG is not a ratio from 0 to 1; sampling every trace", "arg", arg)
			return sdktrace.TraceIDRatioBased(1)
		}
		return sdktrace.TraceIDRatioBased(r)
	}
	switch name {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return ratio()
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(ratio())
	case "", "parentbased_always_on":
	default:
		log.Warn("otel: OTEL_TRACES_SAMPLER not supported; using parentbased_always_on", "sampler", name)
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}

// traceContextPropagated reports whether OTEL_PROPAGATORS has the proxy
// read and pass on W3C trace context (tracecontext, in the default
// "tracecontext,baggage"). "none", or a list without tracecontext, turns it
// off: a client's traceparent is neither joined nor changed, and
// --otel-propagate adds none. baggage is passed on unchanged whatever the
// list says (the proxy reads none); the others (b3, jaeger, xray, ottrace)
// are logged and left out.
func traceContextPropagated(getenv func(string) string, log *slog.Logger) bool {
	v := getenv("OTEL_PROPAGATORS")
	if strings.TrimSpace(v) == "" {
		return true
	}
	on := false
	for p := range strings.SplitSeq(v, ",") {
		switch p = strings.TrimSpace(strings.ToLower(p)); p {
		case "tracecontext":
			on = true
		case "baggage", "none", "":
		default:
			log.Warn("otel: OTEL_PROPAGATORS names a propagator the proxy does not speak; left out", "propagator", p)
		}
	}
	return on
}
