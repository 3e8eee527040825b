package tracing

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recorder returns a TracerProvider that samples everything into an in-memory exporter.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// TestStartUntraced checks that an untraced request records nothing and allocates nothing
// (not parallel: AllocsPerRun).
func TestStartUntraced(t *testing.T) {
	ctx, err := context.Background(), errors.New("x")
	allocs := testing.AllocsPerRun(100, func() {
		c, span := Start(ctx, "Create etcd3")
		if span.IsRecording() || c != ctx {
			t.Fatal("a span without a traced parent")
		}
		span.AddEvent("step")
		span.End(err)
	})
	if allocs != 0 {
		t.Errorf("Start allocates %v times per untraced call, want 0", allocs)
	}
}

// TestStartNests checks that Start records a child of the context's span with the parent's
// provider, and End records an error's status.
func TestStartNests(t *testing.T) {
	t.Parallel()
	tp, exp := recorder(t)
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	if !IsRecording(ctx) || !InTrace(ctx) {
		t.Fatal("a recording span is not seen")
	}
	_, span := Start(ctx, "Create etcd3")
	span.AddEvent("About to Encode")
	span.End(errors.New("etcd down"))
	parent.End()
	got := exp.GetSpans()
	if len(got) != 2 || got[0].Name != "Create etcd3" || got[0].Parent.SpanID() != parent.SpanContext().SpanID() {
		t.Fatalf("spans %+v", got)
	}
	if got[0].Status.Description != "etcd down" || len(got[0].Events) != 2 { // the event and the error
		t.Errorf("status %+v events %+v", got[0].Status, got[0].Events)
	}
}

// TestTransport checks the trace context a webhook receives: the client span's under a
// recording span, the unsampled context as it is, nothing without a span.
func TestTransport(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Header.Get("Traceparent"))
	}))
	defer srv.Close()
	client := &http.Client{Transport: Transport(http.DefaultTransport)}
	tp, exp := recorder(t)
	traced, span := tp.Tracer("test").Start(context.Background(), "request")
	unsampled := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: span.SpanContext().TraceID(), SpanID: span.SpanContext().SpanID()}))
	for _, ctx := range []context.Context{traced, unsampled, context.Background()} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if req.Header.Get("Traceparent") != "" {
			t.Error("the caller's request was changed")
		}
	}
	span.End()
	spans := exp.GetSpans()
	if len(spans) != 2 || spans[0].Parent.SpanID() != span.SpanContext().SpanID() {
		t.Fatalf("spans %+v, want the client span under the request's", spans)
	}
	trace := span.SpanContext().TraceID().String()
	want := []string{"00-" + trace + "-" + spans[0].SpanContext.SpanID().String() + "-01",
		"00-" + trace + "-" + span.SpanContext().SpanID().String() + "-00", ""}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("traceparents %q, want %q", got, want)
	}
}

// BenchmarkStartUntraced is what an untraced request pays per span site: a context lookup
// (through a few values, as a request's context holds).
func BenchmarkStartUntraced(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < 8; i++ {
		ctx = context.WithValue(ctx, &i, i)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, span := Start(ctx, "Get etcd3")
		span.End(nil)
	}
}
