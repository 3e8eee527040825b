package aggregator

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apiregv1 "github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1"
	"github.com/apigen-dev/apigen/runtime/apis/apiregistration/v1/install"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

func TestParseBackend(t *testing.T) {
	b, err := ParseBackend("test.apigen.dev/v1=https://127.0.0.1:8443")
	if err != nil || b.Name() != "v1.test.apigen.dev" || b.URL.Host != "127.0.0.1:8443" || b.Port() != 8443 {
		t.Errorf("%+v %v", b, err)
	}
	if b, err := ParseBackend("g/v1=https://backend.example.com"); err != nil || b.Port() != 443 || b.URL.Host != "backend.example.com:443" {
		t.Errorf("default port: %+v %v", b, err)
	}
	for _, bad := range []string{"test.apigen.dev=https://x", "/v1=https://x", "g/v1=http://x", "g/v1", "g/v1=https://", "g/v1=https://x:99999"} {
		if _, err := ParseBackend(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// newStores builds the apiservices storage and its status subresource's over a fresh etcd.
func newStores(t *testing.T) (Store, rest.Updater) {
	t.Helper()
	client, _ := etcdtest.Run(t)
	info, err := install.NewAPIGroupInfo(runtime.NewScheme(), &etcd3.StorageFactory{Client: client, Prefix: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	store, status, err := StoresFrom(info)
	if err != nil {
		t.Fatal(err)
	}
	return store, status
}

// backend is a TLS server serving group version gv: its discovery document, and every other
// path with the headers it received (as JSON-ish text); it counts proxied requests.
type backend struct {
	*httptest.Server
	mu  sync.Mutex
	got http.Header
}

func newBackend(t *testing.T, gv schema.GroupVersion) *backend {
	b := &backend{}
	b.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis/"+gv.String() {
			_, _ = w.Write([]byte(`{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"` + gv.String() + `","resources":[]}`))
			return
		}
		b.mu.Lock()
		b.got = r.Header.Clone()
		b.mu.Unlock()
		_, _ = w.Write([]byte(`{"backend":"` + r.URL.Path + `"}`))
	}))
	t.Cleanup(b.Close)
	return b
}

// caBundle returns the PEM of the backend's serving certificate, its own CA.
func (b *backend) caBundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.Certificate().Raw})
}

// apiService returns the APIService of gv served by service default/name on port 443.
func apiService(gv schema.GroupVersion, name string, caBundle []byte) *apiregv1.APIService {
	port := int32(443)
	return &apiregv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
		Spec: apiregv1.APIServiceSpec{Group: gv.Group, Version: gv.Version, GroupPriorityMinimum: 100, VersionPriority: 10,
			Service: &apiregv1.ServiceReference{Namespace: "default", Name: name, Port: &port}, CABundle: caBundle},
	}
}

// startAggregator runs an aggregator over store until the test ends; the delegate answers
// 418 with the path.
func startAggregator(t *testing.T, store Store, status rest.Updater, resolver ServiceResolver) *Aggregator {
	t.Helper()
	a, err := New(Config{APIServices: store, Status: status, Resolver: resolver, CheckInterval: 100 * time.Millisecond,
		Delegate: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTeapot)
			_, _ = w.Write([]byte("delegate " + r.URL.Path))
		}),
		LocalGroups: func() []metav1.APIGroup {
			return []metav1.APIGroup{{Name: "local.example.com", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "local.example.com/v1", Version: "v1"}}}}
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	if err := a.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	return a
}

// waitForCondition waits until the stored APIService's Available condition has status and
// reason, and returns it.
func waitForCondition(t *testing.T, store Store, name string, status apiregv1.ConditionStatus, reason string) apiregv1.APIServiceCondition {
	t.Helper()
	var last *apiregv1.APIServiceCondition
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		obj, err := store.Get(context.Background(), name, &metav1.GetOptions{})
		if err != nil {
			continue
		}
		if last = obj.(*apiregv1.APIService).Status.AvailableCondition(); last != nil && last.Status == status && last.Reason == reason {
			return *last
		}
	}
	t.Fatalf("APIService %s never Available=%s (%s); last %+v", name, status, reason, last)
	return apiregv1.APIServiceCondition{}
}

// serve sends one request through a as alice.
func serve(a *Aggregator, method, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("Authorization", "Bearer secret")
	req.Header.Set("X-Remote-User", "mallory")
	req.Header.Set("X-Remote-Extra-Scopes", "all")
	req = req.WithContext(request.WithUser(req.Context(), &request.User{Name: "alice", Groups: []string{"devs", "ops"}, Extra: map[string][]string{"acme.com/team": {"a"}}}))
	rec := httptest.NewRecorder()
	a.ServeHTTP(rec, req)
	return rec
}

// TestAPIServicesDriveProxying runs the aggregator over real etcd and TLS backends: an
// APIService created while it runs is checked (Available=True, Passed), its group listed and
// proxied with the caller in front-proxy headers; one naming an unknown service is
// Available=False ServiceNotFound and answers 503; a backend that stops turns its APIService
// FailedDiscoveryCheck (503, metric 1) without touching the others; a deleted APIService is
// no longer proxied; local group versions get Local APIServices and reach the delegate.
func TestAPIServicesDriveProxying(t *testing.T) {
	store, status := newStores(t)
	gv := schema.GroupVersion{Group: "g.example.com", Version: "v1"}
	b := newBackend(t, gv)
	u, _ := url.Parse(b.URL)
	a := startAggregator(t, store, status, StaticResolver{{Namespace: "default", Name: "api", Port: 443}: u})
	ctx := context.Background()

	// Local APIServices for the chain's groups.
	waitForCondition(t, store, "v1.local.example.com", apiregv1.ConditionTrue, ReasonLocal)
	if rec := serve(a, http.MethodGet, "/apis/local.example.com/v1/things"); rec.Code != http.StatusTeapot {
		t.Errorf("local group version: %d %s", rec.Code, rec.Body)
	}

	if _, err := store.Create(ctx, apiService(gv, "api", b.caBundle()), &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := waitForCondition(t, store, "v1.g.example.com", apiregv1.ConditionTrue, ReasonPassed)
	if c.Message != "all checks passed" || c.LastTransitionTime.IsZero() {
		t.Errorf("condition %+v", c)
	}
	for i := 0; ; i++ { // the watch brings the written status to the snapshot
		if ok, _ := a.Available(gv); ok {
			break
		}
		if i > 500 {
			t.Fatal("the aggregator never saw the APIService available")
		}
		time.Sleep(10 * time.Millisecond)
	}
	rec := serve(a, http.MethodGet, "/apis/g.example.com/v1/things")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"backend":"/apis/g.example.com/v1/things"`) {
		t.Fatalf("proxied: %d %s", rec.Code, rec.Body)
	}
	b.mu.Lock()
	got := b.got
	b.mu.Unlock()
	if got.Get("Authorization") != "" || got.Get("X-Remote-User") != "alice" || strings.Join(got.Values("X-Remote-Group"), ",") != "devs,ops" ||
		got.Get("X-Remote-Extra-Scopes") != "" || got.Get("X-Remote-Extra-Acme.com%2Fteam") != "a" {
		t.Errorf("backend saw headers %v", got)
	}
	// A traced request's W3C trace context goes on to the backend, in a client span of its
	// trace; an untraced one (above) carries none.
	// On a loaded machine (the race pass of make test) a periodic availability check can
	// time out and make the APIService unavailable for a moment: a 503 is retried, as a
	// client would, and any other answer fails the test with its code.
	tp := sdktrace.NewTracerProvider()
	for i := 0; ; i++ {
		tctx, span := tp.Tracer("test").Start(context.Background(), "request")
		req := httptest.NewRequest(http.MethodGet, "/apis/g.example.com/v1/things", nil)
		traced := httptest.NewRecorder()
		a.ServeHTTP(traced, req.WithContext(request.WithUser(tctx, &request.User{Name: "alice"})))
		span.End()
		if traced.Code == http.StatusServiceUnavailable && i < 100 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		b.mu.Lock()
		traceparent := b.got.Get("Traceparent")
		b.mu.Unlock()
		if traced.Code != http.StatusOK || got.Get("Traceparent") != "" || !strings.HasPrefix(traceparent, "00-"+span.SpanContext().TraceID().String()+"-") {
			t.Errorf("backend saw traceparent %q untraced, %q traced (answered %d %s); want none, then one of trace %s",
				got.Get("Traceparent"), traceparent, traced.Code, traced.Body, span.SpanContext().TraceID())
		}
		break
	}
	if rec := serve(a, http.MethodGet, "/apis/g.example.com"); !strings.Contains(rec.Body.String(), `"preferredVersion":{"groupVersion":"g.example.com/v1"`) {
		t.Errorf("group document: %d %s", rec.Code, rec.Body)
	}
	if groups := a.APIGroups(); len(groups) != 1 || groups[0].Name != "g.example.com" {
		t.Errorf("APIGroups: %+v", groups)
	}

	// A service the resolver does not know.
	gv2 := schema.GroupVersion{Group: "g.example.com", Version: "v2"}
	if _, err := store.Create(ctx, apiService(gv2, "nowhere", nil), &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c = waitForCondition(t, store, "v2.g.example.com", apiregv1.ConditionFalse, ReasonServiceNotFound)
	if c.Message != `service/nowhere in "default" is not present` {
		t.Errorf("condition %+v", c)
	}
	if rec := serve(a, http.MethodGet, "/apis/g.example.com/v2/things"); rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"reason":"ServiceUnavailable"`) {
		t.Errorf("unknown service: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(a, http.MethodGet, "/apis/g.example.com"); !strings.Contains(rec.Body.String(), `"groupVersion":"g.example.com/v2"`) {
		t.Errorf("group document lacks the unavailable version: %s", rec.Body)
	}

	// The backend stops: only its APIService turns unavailable.
	b.Close()
	c = waitForCondition(t, store, "v1.g.example.com", apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck)
	if !strings.Contains(c.Message, "failing or missing response from") {
		t.Errorf("condition %+v", c)
	}
	for i := 0; ; i++ {
		rec := serve(a, http.MethodGet, "/apis/g.example.com/v1/things")
		if rec.Code == http.StatusServiceUnavailable {
			break
		}
		if i > 500 {
			t.Fatalf("stopped backend: %d %s", rec.Code, rec.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := testutil.ToFloat64(a.gauge.WithLabelValues("v1.g.example.com")); v != 1 {
		t.Errorf("aggregator_unavailable_apiservice{name=v1.g.example.com} = %v", v)
	}
	if rec := serve(a, http.MethodGet, "/apis/local.example.com/v1/things"); rec.Code != http.StatusTeapot {
		t.Errorf("local group version after the backend stopped: %d", rec.Code)
	}

	// Deleted: the group is no longer proxied.
	for _, name := range []string{"v1.g.example.com", "v2.g.example.com"} {
		if _, _, err := store.Delete(ctx, name, &metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; len(a.APIGroups()) != 0; i++ {
		if i > 500 {
			t.Fatal("deleted APIServices still listed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rec := serve(a, http.MethodGet, "/apis/g.example.com/v1/things"); rec.Code != http.StatusTeapot {
		t.Errorf("deleted APIService: %d %s", rec.Code, rec.Body)
	}
}

// TestValidation checks kube-aggregator's APIService validation: 422 Invalid with a cause per
// broken field.
func TestValidation(t *testing.T) {
	store, _ := newStores(t)
	bad := apiService(schema.GroupVersion{Group: "g.example.com", Version: "v1"}, "", []byte("x"))
	bad.Name = "v1.other.example.com"
	bad.Spec.GroupPriorityMinimum, bad.Spec.VersionPriority, bad.Spec.InsecureSkipTLSVerify = 0, 1001, true
	_, err := store.Create(context.Background(), bad, &metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("got %v, want 422 Invalid", err)
	}
	var fields []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		fields = append(fields, c.Field)
	}
	want := "metadata.name,spec.groupPriorityMinimum,spec.versionPriority,spec.service.name,spec.insecureSkipTLSVerify"
	if strings.Join(fields, ",") != want {
		t.Errorf("causes at %v, want %s", fields, want)
	}
	local := &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.g.example.com"},
		Spec: apiregv1.APIServiceSpec{Group: "g.example.com", Version: "v1", GroupPriorityMinimum: 1, VersionPriority: 1}}
	if _, err := store.Create(context.Background(), local, &metav1.CreateOptions{}); err != nil {
		t.Errorf("valid local APIService: %v", err)
	}
}

// TestTableConvertor checks the `kubectl get apiservices` columns, as upstream prints them.
func TestTableConvertor(t *testing.T) {
	svc := apiService(schema.GroupVersion{Group: "g.example.com", Version: "v1"}, "api", nil)
	svc.Status.Conditions = []apiregv1.APIServiceCondition{{Type: apiregv1.Available, Status: apiregv1.ConditionFalse, Reason: ReasonServiceNotFound}}
	local := &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.local.example.com"}}
	table, err := TableConvertor.ConvertToTable(context.Background(), &apiregv1.APIServiceList{Items: []apiregv1.APIService{*svc, *local}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 4 || len(table.Rows) != 2 {
		t.Fatalf("table %+v", table)
	}
	for i, want := range [][]interface{}{{"v1.g.example.com", "default/api", "False (ServiceNotFound)"}, {"v1.local.example.com", "Local", "Unknown"}} {
		for j, cell := range want {
			if table.Rows[i].Cells[j] != cell {
				t.Errorf("row %d cell %d = %v, want %v", i, j, table.Rows[i].Cells[j], cell)
			}
		}
	}
}

// TestTLSToBackend checks how the backend's serving certificate is verified, and that a spec
// changed while running takes effect: without a caBundle (and no RootCAs) the backend's
// self-signed certificate fails the discovery check; with insecureSkipTLSVerify it passes;
// with its CA as caBundle it passes again.
func TestTLSToBackend(t *testing.T) {
	store, status := newStores(t)
	gv := schema.GroupVersion{Group: "tls.example.com", Version: "v1"}
	b := newBackend(t, gv)
	u, _ := url.Parse(b.URL)
	a := startAggregator(t, store, status, StaticResolver{{Namespace: "default", Name: "api", Port: 443}: u})
	ctx := context.Background()
	if _, err := store.Create(ctx, apiService(gv, "api", nil), &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := waitForCondition(t, store, "v1.tls.example.com", apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck)
	if !strings.Contains(c.Message, "certificate") {
		t.Errorf("unverified backend: %+v", c)
	}
	if rec := serve(a, http.MethodGet, "/apis/tls.example.com/v1/things"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("unverified backend: %d %s", rec.Code, rec.Body)
	}
	update := func(f func(*apiregv1.APIService)) {
		t.Helper()
		if _, _, err := store.Update(ctx, "v1.tls.example.com", updateFunc(func(old runtime.Object) (runtime.Object, error) {
			s := old.(*apiregv1.APIService)
			f(s)
			return s, nil
		}), false, &metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	update(func(s *apiregv1.APIService) { s.Spec.InsecureSkipTLSVerify = true })
	waitForCondition(t, store, "v1.tls.example.com", apiregv1.ConditionTrue, ReasonPassed)
	update(func(s *apiregv1.APIService) { s.Spec.InsecureSkipTLSVerify, s.Spec.CABundle = false, []byte("not PEM") })
	c = waitForCondition(t, store, "v1.tls.example.com", apiregv1.ConditionFalse, ReasonFailedDiscoveryCheck)
	if !strings.Contains(c.Message, "spec.caBundle holds no PEM encoded certificate") {
		t.Errorf("bad caBundle: %+v", c)
	}
	update(func(s *apiregv1.APIService) { s.Spec.CABundle = b.caBundle() })
	waitForCondition(t, store, "v1.tls.example.com", apiregv1.ConditionTrue, ReasonPassed)
}
