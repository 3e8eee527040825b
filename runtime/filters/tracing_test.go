package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/apigen-dev/apigen/runtime/request"
)

// TestWithTracing checks the request span as kube's WithTracing filter records it: named
// by the request, a child of a privileged client's traceparent, a new trace linked to an
// unprivileged client's.
func TestWithTracing(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	inner := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, tc := range []struct {
		path   string
		user   *request.User
		name   string
		joined bool
	}{
		{"/api/v1/namespaces/default/configmaps/a", &request.User{Name: "admin", Groups: []string{"system:masters"}}, "GET /api/v1/namespaces/{:namespace}/configmaps/{:name}", true},
		{"/apis/db.example.com/v1/databases", &request.User{Name: "alice"}, "GET /apis/db.example.com/v1/databases", false},
		{"/healthz", nil, "GET", true},
	} {
		exp.Reset()
		// As the chain runs it: request info, then authentication, then tracing.
		h := WithRequestInfo(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.user != nil {
				r = r.WithContext(request.WithUser(r.Context(), tc.user))
			}
			WithTracing(inner, tp).ServeHTTP(w, r)
		}))
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		req.Header.Set("Traceparent", "00-"+traceID+"-"+parent+"-01")
		h.ServeHTTP(httptest.NewRecorder(), req)
		spans := exp.GetSpans()
		if len(spans) != 1 {
			t.Fatalf("%s: %d spans", tc.path, len(spans))
		}
		s := spans[0]
		joined := s.SpanContext.TraceID().String() == traceID && s.Parent.SpanID().String() == parent
		linked := len(s.Links) == 1 && s.Links[0].SpanContext.TraceID().String() == traceID
		if s.Name != tc.name || joined != tc.joined || joined == linked {
			t.Errorf("%s: span %q joined %v linked %v, want %q joined %v", tc.path, s.Name, joined, linked, tc.name, tc.joined)
		}
	}
}
