package customresource

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/runtime/admission"
	apidiscovery "github.com/apigen-dev/apigen/runtime/discovery"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/tableconvertor"
	crschema "github.com/apigen-dev/apigen/runtime/validation/structural"
)

// cronTabSchema is the CronTab schema of the Kubernetes docs ("Extend the Kubernetes API with
// CustomResourceDefinitions"), with a status and, when withDefault, a default for spec.image.
func cronTabSchema(t *testing.T, withDefault bool) *crschema.Structural {
	t.Helper()
	image := map[string]any{"type": "string"}
	if withDefault {
		image["default"] = "busybox"
	}
	raw := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"cronSpec": map[string]any{"type": "string", "pattern": `^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$`},
					"image":    image,
					"replicas": map[string]any{"type": "integer", "minimum": int64(1), "maximum": int64(10)},
				},
			},
			"status": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"replicas":      map[string]any{"type": "integer"},
					"labelSelector": map[string]any{"type": "string"},
				},
			},
		},
	}
	s, errs := crschema.New(raw, field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema"))
	if len(errs) > 0 {
		t.Fatalf("schema.New: %v", errs.ToAggregate())
	}
	return s
}

// cronTabDefinition is a namespaced CronTab served in v1 (storage) and v1beta1 (deprecated),
// with status and scale subresources and printer columns.
func cronTabDefinition(t *testing.T, withDefault bool) Definition {
	s := cronTabSchema(t, withDefault)
	version := func(name string) Version {
		return Version{
			Name: name, Schema: s, Status: true,
			Scale: &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.labelSelector"},
			PrinterColumns: []tableconvertor.Column{
				{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
				{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
			},
			SelectableFields: []string{"spec.image"},
		}
	}
	beta := version("v1beta1")
	beta.Deprecated = true
	return Definition{
		Group: "stable.example.com",
		Names: Names{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList",
			ShortNames: []string{"ct"}, Categories: []string{"all"}},
		Namespaced:     true,
		Versions:       []Version{beta, version("v1")},
		StorageVersion: "v1",
		UID:            "uid-1",
	}
}

var (
	cronTabs     = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}
	cronTabsBeta = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1beta1", Resource: "crontabs"}
)

// recorder is an admission plugin recording every operation it sees, as
// "CREATE crontabs/" or "UPDATE crontabs/status".
type recorder struct {
	mu  sync.Mutex
	ops []string
}

func (r *recorder) Handles(admission.Operation) bool { return true }

func (r *recorder) Validate(_ context.Context, a *admission.Attributes) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, string(a.Operation)+" "+a.Resource.Resource+"/"+a.Subresource+" "+a.Kind.Kind)
	return nil
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ops...)
}

// fixture is a Handler serving cronTabDefinition over real etcd behind a real HTTP server.
type fixture struct {
	h        *Handler
	srv      *httptest.Server
	dyn      *dynamic.DynamicClient
	disc     *discovery.DiscoveryClient
	admitted *recorder
	warnings *warningRecorder
}

// warningRecorder collects the Warning headers client-go sees.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if testing.Short() {
		t.Skip("starts etcd")
	}
	client, _ := etcdtest.Run(t)
	rec := &recorder{}
	var plugins admission.Plugins
	if err := plugins.Register("Recorder", true, func() (admission.Interface, error) { return rec, nil }); err != nil {
		t.Fatal(err)
	}
	chain, err := plugins.NewChain(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHandler(Config{Storage: &etcd3.StorageFactory{Client: client, Prefix: "/registry"}, Admission: chain})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Set(cronTabDefinition(t, false)); err != nil {
		t.Fatal(err)
	}
	// /api and /apis are the server chain's (runtime/server merges APIGroups into /apis).
	mux := http.NewServeMux()
	mux.Handle("/api", apidiscovery.APIVersionsHandler())
	mux.HandleFunc("/apis", func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteJSON(w, http.StatusOK, &metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: h.APIGroups()})
	})
	// The typed groups' OpenAPI, which lists no custom resources (they publish none).
	mux.HandleFunc("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteJSON(w, http.StatusOK, map[string]any{"paths": map[string]any{}})
	})
	v2, err := openapi_v2.ParseDocument([]byte(`{"swagger":"2.0","info":{"title":"apigen","version":"v0"},"paths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	v2proto, err := proto.Marshal(v2)
	if err != nil {
		t.Fatal(err)
	}
	mux.HandleFunc("/openapi/v2", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf")
		_, _ = w.Write(v2proto)
	})
	// kubectl's client-side validation looks the kind up among the CRDs (the CRD API's, not
	// this package's): a minimal list naming CronTab.
	mux.HandleFunc("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", func(w http.ResponseWriter, _ *http.Request) {
		responsewriters.WriteJSON(w, http.StatusOK, map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinitionList", "metadata": map[string]any{},
			"items": []any{map[string]any{
				"metadata": map[string]any{"name": "crontabs.stable.example.com"},
				"spec": map[string]any{"group": "stable.example.com", "scope": "Namespaced",
					"names":    map[string]any{"plural": "crontabs", "kind": "CronTab"},
					"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}}},
			}},
		})
	})
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	warnings := &warningRecorder{}
	cfg := &rest.Config{Host: srv.URL, WarningHandler: warnings}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{h: h, srv: srv, dyn: dyn, disc: disc, admitted: rec, warnings: warnings}
}

// do sends a request with a JSON body (when not empty) and returns the status, headers and
// body.
func (f *fixture) do(t *testing.T, method, path, contentType, body string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// decode unmarshals data into a map, failing the test otherwise.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("cannot decode %s: %v", data, err)
	}
	return m
}

// cronTabJSON is a CronTab named name in apiVersion stable.example.com/<version>, with extra
// spec fields.
func cronTabJSON(version, name, spec string) string {
	return `{"apiVersion":"stable.example.com/` + version + `","kind":"CronTab","metadata":{"name":"` + name +
		`"},"spec":{` + spec + `}}`
}
