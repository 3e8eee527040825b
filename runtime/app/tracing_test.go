package app

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	admissionv1 "k8s.io/api/admission/v1"
	admregv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// collector is an in-process OTLP gRPC trace receiver on loopback: the spans servers export
// to it.
type collector struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*tracepb.Span
}

// Export implements collectortrace.TraceServiceServer.
func (c *collector) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// trace returns the spans received of the trace id.
func (c *collector) trace(id []byte) []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range c.spans {
		if string(s.TraceId) == string(id) {
			out = append(out, s)
		}
	}
	return out
}

// await waits up to 15 s for spans of trace id named names and returns them by name (the
// first of each name).
func (c *collector) await(t *testing.T, id []byte, names []string) map[string]*tracepb.Span {
	t.Helper()
	byName := map[string]*tracepb.Span{}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := c.trace(id)
		for _, s := range got {
			if byName[s.Name] == nil {
				byName[s.Name] = s
			}
		}
		var missing []string
		for _, n := range names {
			if byName[n] == nil {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 {
			return byName
		}
		if time.Now().After(deadline) {
			var seen []string
			for _, s := range got {
				seen = append(seen, s.Name)
			}
			t.Fatalf("spans of trace %x missing %q; got %q", id, missing, seen)
		}
	}
}

// startCollector serves a collector on a free loopback port until the test ends and
// returns it and its address.
func startCollector(t *testing.T) (*collector, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, c)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return c, ln.Addr().String()
}

// traceWebhook is a validating admission webhook over TLS on loopback that allows every
// request and keeps the traceparent header of each, by the name of the object admitted.
type traceWebhook struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string]string
}

// startTraceWebhook starts a traceWebhook, stopped when the test ends.
func startTraceWebhook(t *testing.T) *traceWebhook {
	t.Helper()
	wh := &traceWebhook{got: map[string]string{}}
	wh.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, fmt.Sprintf("not an AdmissionReview: %v", err), http.StatusBadRequest)
			return
		}
		wh.mu.Lock()
		wh.got[review.Request.Name] = r.Header.Get("Traceparent")
		wh.mu.Unlock()
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(&review)
	}))
	t.Cleanup(wh.srv.Close)
	return wh
}

// traceparent returns the traceparent header the webhook received for the object name and
// whether it was called for it.
func (wh *traceWebhook) traceparent(name string) (string, bool) {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	tp, ok := wh.got[name]
	return tp, ok
}

// register configures the webhook, through admin, for the creation of ConfigMaps with
// labels, and returns once it is in use: it has seen a probe ConfigMap (configurations reach
// admission through a watch). It returns the name of that probe.
func (wh *traceWebhook) register(t *testing.T, admin *kubernetes.Clientset, labels map[string]string) string {
	t.Helper()
	url, fail, none := wh.srv.URL+"/validate", admregv1.Fail, admregv1.SideEffectClassNone
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: wh.srv.Certificate().Raw})
	ctx := context.Background()
	if _, err := admin.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admregv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "traced"},
		Webhooks: []admregv1.ValidatingWebhook{{Name: "traced.apigen.dev", ClientConfig: admregv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admregv1.RuleWithOperations{{Operations: []admregv1.OperationType{admregv1.Create},
				Rule: admregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: labels}, FailurePolicy: &fail, SideEffects: &none,
			AdmissionReviewVersions: []string{"v1"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		name := fmt.Sprintf("probe-%d", i)
		if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, ok := wh.traceparent(name); ok {
			return name
		}
		if i == 100 {
			t.Fatal("the webhook was not called within 100 creates")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// headerTransport adds a header to every request.
type headerTransport struct {
	rt           http.RoundTripper
	name, header string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.header)
	return h.rt.RoundTrip(r)
}

// TestTracing checks the request traces: a server with --tracing-config-file, on etcd over
// gRPC (--etcd-servers), exports to an in-process OTLP receiver the span tree of a
// ConfigMap created through client-go with a sampled W3C traceparent: the HTTP server span
// (named as kube names it, a child of the client's span, in its trace) -> "Create" ->
// "Admit" and "Validate" (admission) and "Create etcd3" (storage) -> the etcd client's gRPC
// span, with kube's events on "Create"; and the validating webhook receives a traceparent of the same trace, whose parent
// is the server's client span under "Validate". Sampling is unset (kube's default: only a
// sampled parent is sampled), so the requests without a traceparent export nothing.
func TestTracing(t *testing.T) {
	t.Parallel()
	spans, collectorAddr := startCollector(t)
	_, member := etcdtest.Run(t)
	hook := startTraceWebhook(t)
	config := filepath.Join(t.TempDir(), "tracing.yaml")
	if err := os.WriteFile(config, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: "+collectorAddr+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	_, kubeconfig := startWith(t, stop, func(args []string, stdout, stderr io.Writer) int {
		return Run(ctx, "test-apiserver", append(args, "--plain-http=false", "--leader-elect=false",
			"--etcd-servers="+member.Endpoints()[0], "--tracing-config-file="+config), stdout, stderr)
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ContentType = "application/json" // the served admissionregistration.k8s.io takes no protobuf bodies yet
	admin := kubernetes.NewForConfigOrDie(cfg)

	labels := map[string]string{"traced": "true"}
	probe := hook.register(t, admin, labels)

	// One create in the client's trace, sampled.
	traceID, clientSpan := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	traced := rest.CopyConfig(cfg)
	traced.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &headerTransport{rt: rt, name: "Traceparent", header: "00-" + traceID + "-" + clientSpan + "-01"}
	})
	if _, err := kubernetes.NewForConfigOrDie(traced).CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "traced", Labels: labels}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Stopping the server exports the spans it still batches.
	stop()
	id, _ := hex.DecodeString(traceID)
	want := []string{"POST /api/v1/namespaces/{:namespace}/configmaps", "Create", "Admit", "Validate", "Create etcd3", "etcdserverpb.KV/Txn", "HTTP POST"}
	byName := spans.await(t, id, want)
	server := byName[want[0]]
	if got := hex.EncodeToString(server.ParentSpanId); got != clientSpan || server.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("server span: parent %s kind %v, want the client's span %s, SERVER", got, server.Kind, clientSpan)
	}
	parentOf := map[string]string{"Create": want[0], "Admit": "Create", "Validate": "Create", "Create etcd3": "Create",
		"etcdserverpb.KV/Txn": "Create etcd3", "HTTP POST": "Validate"}
	for child, parent := range parentOf {
		if c, p := byName[child], byName[parent]; string(c.ParentSpanId) != string(p.SpanId) {
			t.Errorf("span %q has parent %x, want %q (%x)", child, c.ParentSpanId, parent, p.SpanId)
		}
	}
	var events []string
	for _, e := range byName["Create"].Events {
		events = append(events, e.Name)
	}
	if got, want := strings.Join(events, "; "), "About to store object in database; Write to database call finished; About to write a response"; got != want {
		t.Errorf("Create's events: %s; want %s", got, want)
	}
	ours := len(spans.trace(id))
	spans.mu.Lock()
	all := len(spans.spans)
	spans.mu.Unlock()
	if all != ours {
		t.Errorf("%d spans exported, %d of them of the traced request: with no sampling rate only sampled parents are sampled", all, ours)
	}
	tp, _ := hook.traceparent("traced")
	want1 := "00-" + traceID + "-" + hex.EncodeToString(byName["HTTP POST"].SpanId) + "-01"
	if tp != want1 {
		t.Errorf("webhook got traceparent %q, want %q (the server's call under Validate)", tp, want1)
	}
	// An unsampled request has a trace of its own, not recorded, whose context is still
	// carried (flags 00), as kube's otelhttp handler and transport do.
	if tp, _ := hook.traceparent(probe); !strings.HasSuffix(tp, "-00") || strings.Contains(tp, traceID) {
		t.Errorf("an untraced request's webhook call carried traceparent %q, want an unsampled one of another trace", tp)
	}
}
