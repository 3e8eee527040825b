package webhook

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/admission"
	"github.com/apigen-dev/apigen/runtime/admission/versioned"
	admregv1 "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1"
	admreginstall "github.com/apigen-dev/apigen/runtime/apis/admissionregistration/v1/install"
	corev1 "github.com/apigen-dev/apigen/runtime/apis/core/v1"
	coreinstall "github.com/apigen-dev/apigen/runtime/apis/core/v1/install"
	"github.com/apigen-dev/apigen/runtime/auth"
	"github.com/apigen-dev/apigen/runtime/certs"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// Widgets are served as test.apigen.dev v1 and v2 over one internal type.
var (
	widgetsV1 = testapi.SchemeGroupVersion.WithResource("widgets")
	widgetsV2 = schema.GroupVersionResource{Group: testapi.SchemeGroupVersion.Group, Version: "v2", Resource: "widgets"}
)

// env is a server's worth of what the plugins read: configurations and namespaces in a real
// etcd, a scheme serving Widgets in two versions.
type env struct {
	scheme       *runtime.Scheme
	resources    *versioned.Resources
	configs      map[string]rest.Storage
	namespaces   *registry.Store
	ctx          context.Context
	widgetsStore rest.Storage
}

type widgetStorage struct{ name string }

func (widgetStorage) New() runtime.Object { return &testapi.Widget{} }

func newEnv(t *testing.T) *env {
	t.Helper()
	client, _ := etcdtest.Run(t)
	scheme := runtime.NewScheme()
	for _, gv := range []schema.GroupVersion{widgetsV1.GroupVersion(), widgetsV2.GroupVersion(), {Group: widgetsV1.Group, Version: runtime.APIVersionInternal}} {
		scheme.AddKnownTypes(gv, &testapi.Widget{}, &testapi.WidgetList{})
		if gv.Version != runtime.APIVersionInternal {
			metav1.AddToGroupVersion(scheme, gv)
		}
	}
	factory := &etcd3.StorageFactory{Client: client, Prefix: "/registry"}
	reg, err := admreginstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		t.Fatal(err)
	}
	core, err := coreinstall.NewAPIGroupInfo(scheme, factory)
	if err != nil {
		t.Fatal(err)
	}
	widgets := &widgetStorage{"widgets"}
	info := &registry.APIGroupInfo{Group: widgetsV1.Group, PrioritizedVersions: []schema.GroupVersion{widgetsV1.GroupVersion(), widgetsV2.GroupVersion()},
		VersionedResourcesStorageMap: map[string]map[string]rest.Storage{"v1": {"widgets": widgets}, "v2": {"widgets": widgets}}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &env{scheme: scheme, resources: versioned.NewResources(scheme, info), configs: reg.VersionedResourcesStorageMap["v1"],
		namespaces: core.VersionedResourcesStorageMap["v1"]["namespaces"].(*registry.Store), ctx: ctx, widgetsStore: widgets}
}

// lister is the server's SetListers argument.
func (e *env) lister(gr schema.GroupResource) rest.Lister {
	if gr.Group == admregv1.SchemeGroupVersion.Group {
		l, _ := e.configs[gr.Resource].(rest.Lister)
		return l
	}
	if gr == (schema.GroupResource{Resource: "namespaces"}) {
		return e.namespaces
	}
	return nil
}

// start initialises p as the server does and runs its caches.
func (e *env) start(p admission.Interface) {
	p.(admission.WantsListers).SetListers(e.lister)
	p.(admission.WantsScheme).SetScheme(e.scheme, e.resources)
	go p.(admission.CacheRunner).RunCaches(e.ctx)
}

// create defaults obj and creates it through its store.
func (e *env) create(t *testing.T, resource string, obj runtime.Object) {
	t.Helper()
	e.scheme.Default(obj)
	s := e.configs[resource]
	if resource == "namespaces" {
		s = e.namespaces
	}
	if _, err := s.(rest.Creater).Create(e.ctx, obj, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitForHooks waits until p's cache has n webhooks.
func waitForHooks(t *testing.T, p *base, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); p.src == nil || len(p.src.list()) != n; {
		if time.Now().After(deadline) {
			t.Fatalf("the plugin did not see %d webhooks within 10s", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// widgetAttrs is a request for a Widget in namespace ns.
func widgetAttrs(op admission.Operation, ns string, obj, old *testapi.Widget) *admission.Attributes {
	a := &admission.Attributes{Operation: op, Kind: widgetsV1.GroupVersion().WithKind("Widget"), Resource: widgetsV1,
		Namespace: ns, User: &auth.User{Name: "alice", Groups: []string{"devs"}}}
	if obj != nil {
		a.Object, a.Name = obj, obj.Name
	}
	if old != nil {
		a.OldObject, a.Name = old, old.Name
	}
	return a
}

// server is a test HTTPS webhook on loopback: answer decides each review's response (UID is
// filled in); reviews records what it received.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	reviews []*admissionv1.AdmissionRequest
}

func newServer(t *testing.T, answer func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reviews = append(s.reviews, review.Request)
		s.mu.Unlock()
		resp := answer(review.Request)
		resp.UID = review.Request.UID
		out, _ := json.Marshal(admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// calls returns how many reviews the server received.
func (s *server) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reviews)
}

// last returns the last review received.
func (s *server) last() *admissionv1.AdmissionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reviews[len(s.reviews)-1]
}

// caBundle is the PEM of the server's certificate.
func (s *server) caBundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// clientConfig calls the server at path.
func (s *server) clientConfig(path string) admregv1.WebhookClientConfig {
	u := s.URL + path
	return admregv1.WebhookClientConfig{URL: &u, CABundle: s.caBundle()}
}

// widgetRule matches every operation on widgets of version.
func widgetRule(version string) []admregv1.RuleWithOperations {
	return []admregv1.RuleWithOperations{{Operations: []admregv1.OperationType{admregv1.OperationAll},
		Rule: admregv1.Rule{APIGroups: []string{widgetsV1.Group}, APIVersions: []string{version}, Resources: []string{"widgets"}}}}
}

func ptr[T any](v T) *T { return &v }

// namespace creates namespace name with labels.
func (e *env) namespace(t *testing.T, name string, labels map[string]string) {
	e.create(t, "namespaces", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// tlsCertificate is the serving certificate of bundle as a server TLS configuration.
func tlsCertificate(bundle *certs.Bundle) (*tls.Config, error) {
	c, err := tls.LoadX509KeyPair(bundle.CertFile(certs.ServingName), bundle.KeyFile(certs.ServingName))
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{c}}, nil
}
