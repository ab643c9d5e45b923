// Package otlptest is an OpenTelemetry collector for tests: an OTLP/HTTP
// receiver in the test's process that decodes each protobuf export request
// and keeps its spans. Only tests import it.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is an OTLP/HTTP collector in the test's process: it decodes
// each protobuf export request POSTed to /v1/traces and keeps its spans.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	resource []*commonpb.KeyValue
}

// New starts a receiver, which the test's end stops; its URL is the
// base URL to export to.
func New(t testing.TB) *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusBadRequest)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	var export collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &export)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range export.ResourceSpans {
		r.resource = rs.GetResource().GetAttributes()
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// ByName is what the receiver holds: the spans by name (each name's in
// the order received).
func (r *Receiver) ByName() map[string][]*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	byName := map[string][]*tracepb.Span{}
	for _, s := range r.spans {
		byName[s.Name] = append(byName[s.Name], s)
	}
	return byName
}

// Attrs are a span's (or resource's) attributes as text (a list's
// strings joined by commas).
func Attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetArrayValue() != nil:
			s := ""
			for i, e := range v.GetArrayValue().Values {
				if i > 0 {
					s += ","
				}
				s += e.GetStringValue()
			}
			m[kv.Key] = s
		case v.GetStringValue() != "":
			m[kv.Key] = v.GetStringValue()
		default:
			m[kv.Key] = anyString(v)
		}
	}
	return m
}

func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	}
	return ""
}

// HexID is a trace or span ID as W3C trace context writes it.
func HexID(b []byte) string { return hex.EncodeToString(b) }

// Spans are all the spans received, in order.
func (r *Receiver) Spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// Resource is the resource of the last export.
func (r *Receiver) Resource() []*commonpb.KeyValue {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resource
}

// Hanging is a collector that hangs: it takes every connection and never
// reads from it or answers, until the test ends. Its URL is the base URL
// to export to.
func Hanging(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("otlptest: %v", err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}
